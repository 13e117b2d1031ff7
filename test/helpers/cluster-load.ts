import { WorkflowFailedError, type Client } from '@temporalio/client';
import type { JobClient } from '../../src/client/job-client';
import type { Db } from '../../src/jobs/database/schema';
import { createAccount } from '../../src/jobs/database/seed';
import type { BuiltInJobType as JobType } from '../../src/jobs/catalog';
import { makeRecords, type TestSyncSource } from './sync-source';

/** What a planned job is made to meet: nothing, a failure that a retry overcomes, or one that dead-letters it. */
export type Injected = 'none' | 'transient' | 'permanent';

/** One job of a mixed load. */
export interface PlannedJob {
  type: JobType;
  payload: Record<string, unknown>;
  /** The job ID given at enqueue (process-payment derives its own from the payment ID). */
  id?: string;
  /** Its priority, 1–5 spread over the plan, so that a backlog under a fault holds every level. */
  priority: number;
  /** The tenant it is enqueued for: its fairness key (`t0` to `t3`; `t0` weighs 3). */
  tenant: string;
  injected: Injected;
}

/** A mixed load of every job type, and the accounts its payments move money between. */
export interface LoadPlan {
  prefix: string;
  jobs: PlannedJob[];
  accounts: string[];
}

/** Shape of a load. */
export interface LoadOptions {
  /** Jobs in all, spread evenly over the four types. */
  count: number;
  /** Lower-case letters, digits and `-`: makes every ID, account and source name of this load unique. */
  prefix: string;
  /** Share of emails and syncs failing once, transiently (SMTP 451, HTTP 503). @defaultValue 0.2 */
  transientShare?: number;
  /** Share of emails, payments and syncs failing for good (SMTP 550, unknown account, HTTP 404). @defaultValue 0.1 */
  permanentShare?: number;
}

const types: JobType[] = ['send-email', 'process-payment', 'sync-data', 'generate-report'];
const accountCount = 10;
/** Tenants of a load: each job is enqueued with one as its fairness key. */
export const tenantCount = 4;
/** Records per synced source: two pages of 2 and one of 1. */
export const recordsPerSource = 5;

/** Plans a deterministic mixed load; the failures are spread evenly through it. */
export function planLoad(options: LoadOptions): LoadPlan {
  const { prefix } = options;
  const transient = options.transientShare ?? 0.2;
  const permanent = options.permanentShare ?? 0.1;
  const accounts = Array.from({ length: accountCount }, (_, i) => `${prefix}-acct-${i}`);
  const planned: Omit<PlannedJob, 'tenant'>[] = [];
  for (let i = 0; i < options.count; i++) {
    const type = types[i % types.length]!;
    // Golden-ratio spacing spreads each share evenly over the run, whatever the count.
    const u = (Math.floor(i / types.length) * 0.618_033_988_75) % 1;
    const wanted: Injected = u < permanent ? 'permanent' : u < permanent + transient ? 'transient' : 'none';
    const name = `${prefix}-${i}`;
    // Levels 1–5 in turn within each type, so that every type has jobs at every level.
    const priority = 1 + (Math.floor(i / types.length) % 5);
    switch (type) {
      case 'send-email': {
        const to = `${wanted === 'permanent' ? 'bounce' : wanted === 'transient' ? 'flaky' : 'ok'}-${name}@example.com`;
        planned.push({ type, id: `${name}-email`, payload: { to, subject: `load ${i}`, body: 'mixed load', userId: name }, injected: wanted, priority });
        break;
      }
      case 'process-payment': {
        const from = accounts[i % accountCount]!;
        const to = wanted === 'permanent' ? `${name}-ghost` : accounts[(i + 1 + (i % 3)) % accountCount]!;
        planned.push({ type, payload: { paymentId: `${name}-pay`, fromAccount: from, toAccount: to, amount: (i % 500) + 1, currency: 'EUR' }, injected: wanted === 'permanent' ? 'permanent' : 'none', priority });
        break;
      }
      case 'sync-data':
        planned.push({ type, id: `${name}-sync`, payload: { source: `${name}-src`, pageSize: 2 }, injected: wanted, priority });
        break;
      default:
        planned.push({ type, id: `${name}-report`, payload: { from: '2026-01-01', to: '2027-01-01', format: 'json', accounts: accounts.slice(0, 3), name: `${name}-report` }, injected: 'none', priority });
    }
  }
  // Four tenants in turn across the types, so that every type carries every fairness key.
  const jobs = planned.map((job, i) => ({ ...job, tenant: `t${Math.floor(i / types.length) % tenantCount}` }));
  return { prefix, jobs, accounts };
}

/** Opening balance of each load account, in cents. */
export const openingBalance = 1_000_000;

/** Creates the plan's accounts and the sync source's records (none for `permanent` syncs: the source answers 404). */
export async function prepareLoad(plan: LoadPlan, db: Db, source: TestSyncSource): Promise<void> {
  for (const id of plan.accounts) await createAccount(db, { id, currency: 'EUR', balance: openingBalance });
  const flaky = new Set<string>();
  for (const job of plan.jobs) {
    if (job.type !== 'sync-data') continue;
    const name = job.payload.source as string;
    if (job.injected !== 'permanent') source.setRecords(name, makeRecords(recordsPerSource));
    if (job.injected === 'transient') flaky.add(name);
  }
  const previous = source.script;
  source.script = (request) => {
    if (flaky.delete(request.source)) return { status: 503, headers: { 'retry-after': '1' } };
    return previous?.(request);
  };
}

/** How one job ended. */
export interface Outcome {
  id: string;
  job: PlannedJob;
  status: 'completed' | 'failed';
}

/** A load on its way: enqueued (as `ids` fills), then settled. */
export interface RunningLoad {
  /** Job IDs, in plan order, once enqueued. */
  ids: string[];
  /** Jobs settled so far. */
  settled: () => number;
  /** Resolves when every job has completed or failed. */
  done: Promise<Outcome[]>;
  /** When enqueueing started (ms since the epoch). */
  startedAt: number;
}

async function pool<T, R>(items: T[], width: number, run: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await run(items[i]!, i);
      }
    }),
  );
  return results;
}

/**
 * Waits for a job's result. Errors other than the job's own failure (a node restarting, the
 * database away) are retried: the job is durable, only this call was interrupted.
 */
async function settle(client: Client, id: string): Promise<'completed' | 'failed'> {
  for (;;) {
    try {
      await client.workflow.getHandle(id).result();
      return 'completed';
    } catch (err) {
      if (err instanceof WorkflowFailedError) return 'failed';
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/** Enqueues the plan (20 at a time) and waits for every job (200 at a time). */
export function runLoad(jobs: JobClient, plan: LoadPlan): RunningLoad {
  const ids: string[] = [];
  let settled = 0;
  const startedAt = Date.now();
  const enqueueOne = async (job: PlannedJob): Promise<string> => {
    for (;;) {
      try {
        const fairness = { fairnessKey: job.tenant, ...(job.tenant === 't0' ? { fairnessWeight: 3 } : {}) };
        const { id } = await jobs.enqueue(job.type, job.payload as never, { ...(job.id ? { id: job.id } : {}), priority: job.priority, ...fairness });
        return id;
      } catch (err) {
        // An enqueue interrupted by a fault is retried with the same ID: it starts the job at most once.
        if (err instanceof Error && /jobs:(invalid|id-conflict|unknown)/.test(err.message)) throw err;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  };
  const done = (async () => {
    const enqueued = await pool(plan.jobs, 20, async (job, i) => (ids[i] = await enqueueOne(job)));
    return pool(enqueued, 200, async (id, i) => {
      const status = await settle(jobs.temporal, id);
      settled += 1;
      return { id, job: plan.jobs[i]!, status };
    });
  })();
  return { ids, settled: () => settled, done, startedAt };
}

/** Resolves once `load` has settled `count` jobs; rejects if the load fails first (e.g. an enqueue refused). */
export async function untilSettled(load: RunningLoad, count: number): Promise<void> {
  let failure: unknown;
  load.done.catch((err: unknown) => (failure = err ?? new Error('load failed')));
  while (load.settled() < count) {
    if (failure !== undefined) throw failure;
    await new Promise((r) => setTimeout(r, 200));
  }
}
