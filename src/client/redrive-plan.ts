// What a redrive will do to a dead-lettered job's steps, read from the ledger: a redrive starts a
// new execution, and the ledger runs each step once per execution, so every step runs again. A step
// the failed execution did and its compensation undid runs again from a clean slate; a step it did
// and nothing undid runs a second time: a double effect (a second capture, a second email), which
// the console's redrive preview and `jobctl dlq redrive --dry-run` flag before anything restarts.
import type { Client } from '@temporalio/client';
import type { Kysely } from 'kysely';
import type { Catalog } from '../catalog/catalog';
import type { LedgerDatabase } from '../activity-kit/ledger';
import { describeError } from '../shared/errors';
import type { DeadLetterEntry } from '../workflow-kit/dead-letter-entries';

/** The prefix of a compensation step's ledger name: `compensate:capture` undoes `capture`. */
export const compensationPrefix = 'compensate:';

/**
 * What becomes of one step when the job is redriven:
 * - `not-done`: the failed execution has no ledger row for it; the redrive runs it (for the first
 *   time, as far as the ledger knows: a step that records nothing there, like an email sent, is
 *   never known to be done),
 * - `undone`: done, then undone by its compensation; the redrive runs it again from a clean slate,
 * - `done-not-undone`: done and never undone; the redrive runs it again, so its effect happens twice.
 */
export type StepFate = 'not-done' | 'undone' | 'done-not-undone';

/** One step of a redrive plan. */
export interface StepPlan {
  step: string;
  fate: StepFate;
  /** When the failed execution's ledger recorded the step (ISO 8601). */
  doneAt?: string;
  /** When its compensation (`compensate:<step>`) was recorded (ISO 8601). */
  undoneAt?: string;
  /** What the redrive will do, in words, e.g. `done and not undone: it will run again`. */
  effect: string;
}

/** What a redrive of one job will do, step by step. */
export interface RedrivePlan {
  id: string;
  type: string;
  /** The failed execution (the first run ID of the run chain that failed last), when Temporal still has it. */
  execution?: string;
  /** Whether the ledger could be read; without it the plan has no steps and says why in {@link problem}. */
  ledger: boolean;
  /** The job type's declared steps and every step the ledger recorded, in order. */
  steps: StepPlan[];
  /** The steps flagged `done-not-undone`. */
  doubleEffects: string[];
  /** Why the plan is incomplete: no database, the failed run gone from Temporal, the ledger unreadable. */
  problem?: string;
}

/** A ledger row of the failed execution, as the plan reads it. */
export interface LedgerStepRow {
  step: string;
  created_at: string;
}

const effects: Record<StepFate, string> = {
  'not-done': 'not recorded as done: it will run',
  undone: 'done, then undone by compensation: it will run again',
  'done-not-undone': 'done and not undone: it will run again',
};

/**
 * The plan of steps from the failed execution's ledger rows. Declared steps come first in their
 * order, then steps only the ledger knows (e.g. a sync's pages) in the order they were recorded.
 */
export function planSteps(declared: readonly string[], rows: readonly LedgerStepRow[]): StepPlan[] {
  const doneAt = new Map<string, string>();
  const undoneAt = new Map<string, string>();
  const order = [...declared];
  for (const row of rows) {
    const undone = row.step.startsWith(compensationPrefix);
    const step = undone ? row.step.slice(compensationPrefix.length) : row.step;
    (undone ? undoneAt : doneAt).set(step, row.created_at);
    if (!order.includes(step)) order.push(step);
  }
  return order.map((step) => {
    const fate: StepFate = !doneAt.has(step) ? 'not-done' : undoneAt.has(step) ? 'undone' : 'done-not-undone';
    const plan: StepPlan = { step, fate, effect: effects[fate] };
    if (doneAt.has(step)) plan.doneAt = doneAt.get(step);
    if (undoneAt.has(step)) plan.undoneAt = undoneAt.get(step);
    // An undo recorded for a step that never committed found nothing to undo (it ran to be safe).
    if (!doneAt.has(step) && undoneAt.has(step)) plan.effect = 'not done (its undo found nothing to undo): it will run';
    return plan;
  });
}

/** What {@link readRedrivePlan} reads through: the job client's Temporal client and catalog. */
export interface RedrivePlanSource {
  temporal: Client;
  catalog?: Catalog;
}

/**
 * Reads the redrive plan of a DLQ entry: finds its failed execution in Temporal (the first run of
 * the chain its last failed run belongs to) and that execution's ledger rows in `db`. Never throws
 * for what it cannot read: the plan says what is missing in `problem`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any catalog's database; only the ledger is read
export async function readRedrivePlan(source: RedrivePlanSource, db: Kysely<any> | undefined, entry: DeadLetterEntry): Promise<RedrivePlan> {
  const definition = source.catalog?.definition(entry.type);
  const declared = definition ? (definition.steps ?? [definition.type]) : [];
  const base = { id: entry.id, type: entry.type };
  const unknown = (problem: string, execution?: string): RedrivePlan => ({ ...base, execution, ledger: false, steps: planSteps(declared, []).map((s) => ({ ...s, effect: 'unknown: it will run' })), doubleEffects: [], problem });
  if (!db) return unknown('the ledger is not available (the console or jobctl was started without the jobs database): what the failed execution did is not known');
  let execution: string;
  try {
    const description = await source.temporal.workflow.getHandle(entry.id, entry.lastRunId).describe();
    execution = description.raw.workflowExecutionInfo?.firstRunId || entry.lastRunId;
  } catch (err) {
    return unknown(`the failed run ${entry.lastRunId} cannot be read from Temporal (${describeError(err)}), so its execution's ledger rows cannot be told apart`);
  }
  let rows: LedgerStepRow[];
  try {
    rows = await (db as Kysely<LedgerDatabase>)
      .selectFrom('ledger')
      .select(['step', 'created_at'])
      .where('job_id', '=', entry.id)
      .where('execution', '=', execution)
      .orderBy('created_at')
      .orderBy('step')
      .execute();
  } catch (err) {
    return unknown(`the ledger cannot be read: ${describeError(err)}`, execution);
  }
  const steps = planSteps(declared, rows);
  return { ...base, execution, ledger: true, steps, doubleEffects: steps.filter((s) => s.fate === 'done-not-undone').map((s) => s.step) };
}
