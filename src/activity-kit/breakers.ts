// A worker's side of its dependencies' breakers: the slot gate of each dependency's queue, what it
// last read of each breaker, the admissions its attempts ask for and the reports they send
// (src/catalog/breaker-calls.ts). While a breaker is closed and counts no failure, an attempt asks
// nothing and only a counted failure is reported, so a healthy dependency costs no call per
// attempt; after a counted failure, or while half-open, each attempt asks the breaker for its turn
// and reports how it ended (src/catalog/breaker-admission.ts). Best effort: a read, an admission or
// a report that fails is logged and the attempt goes on as it would have without a breaker.
import type { Client } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { BreakerAdmission } from '../catalog/breaker-admission';
import type { BreakerReport, BreakerView } from '../catalog/breaker-state';
import { askBreaker, readBreaker, sendToBreaker, startBreaker } from '../catalog/breaker-calls';
import type { DependencyPlan } from '../catalog/dependency-plan';
import { ErrorType, describeError } from '../shared/errors';
import { bounded } from '../shared/bounded';
import { BreakerGate } from './breaker-gate';

/** How long a worker trusts what it last read of a breaker, in ms. */
const viewTtlMs = 1000;
/** How long an attempt waits, at most, for its report to reach the breaker before it ends anyway. */
const reportTimeoutMs = 5000;
/** How long a worker takes no new attempt against a dependency, at most, while the breaker has not answered a failure's report. */
const failureHoldMs = 30_000;

interface Log {
  warn(message: string, meta?: Record<string, unknown>): void;
}

/** A failure the breaker of a dependency counts: retryable, and of a type it counts. */
export function countsAgainst(plan: Pick<DependencyPlan, 'settings'>, failure: unknown, nonRetryableTypes: readonly string[]): boolean {
  if (failure instanceof CancelledFailure) return false;
  const type = failureType(failure);
  if (failure instanceof ApplicationFailure && failure.nonRetryable) return false;
  if (type !== undefined && nonRetryableTypes.includes(type)) return false;
  if (type === ErrorType.WorkerShutdown || type === ErrorType.MissingConfig || type === ErrorType.BreakerOpen) return false;
  const counted = plan.settings.countErrorTypes;
  return counted === undefined || (type !== undefined && counted.includes(type));
}

/** An attempt's standing with its dependency's breaker: admitted (the breaker waits for its report), or free to run. */
export interface BreakerTurn {
  admitted: boolean;
}

/** How long an attempt may wait for its turn, and how long the turn lasts without its report (ms). */
export interface TurnLimits {
  waitMs: number;
  leaseMs: number;
}

export class DependencyBreakers {
  private readonly gates = new Map<string, BreakerGate>();
  private readonly views = new Map<string, { at: number; view: Promise<BreakerView | undefined> }>();
  private readonly byName: Map<string, DependencyPlan>;

  constructor(
    private readonly client: Client,
    /** The deployment's shared queue, where the breakers run. */
    private readonly sharedQueue: string,
    plans: readonly DependencyPlan[],
    private readonly log?: Log,
  ) {
    this.byName = new Map(plans.map((p) => [p.name, p]));
  }

  get plans(): DependencyPlan[] {
    return [...this.byName.values()];
  }

  plan(name: string): DependencyPlan | undefined {
    return this.byName.get(name);
  }

  /** The slot gate of a dependency's queue in this process. */
  gate(name: string): BreakerGate {
    let gate = this.gates.get(name);
    if (!gate) {
      const plan = this.byName.get(name);
      gate = new BreakerGate(plan?.concurrency ?? 100, plan?.settings.windowMs ?? 30_000);
      this.gates.set(name, gate);
    }
    return gate;
  }

  /**
   * Before an attempt: while its breaker is closed and counts no failure, it begins at once; else
   * it asks the breaker for its turn and waits (one attempt at a time across the fleet, the probe
   * while half-open, none while open) for at most `limits.waitMs`, then throws `jobs:breaker-open`
   * (it never called the dependency). `cancelled` ends the wait (the job was cancelled).
   */
  async begin(name: string, jobId: string, limits: TurnLimits, cancelled?: Promise<never>): Promise<BreakerTurn> {
    const plan = this.byName.get(name);
    const view = await this.view(name);
    if (!plan || !view || (view.state === 'closed' && !view.suspect)) return { admitted: false };
    const asked = askBreaker(this.client, this.sharedQueue, plan, { jobId, ...limits });
    let answer: BreakerAdmission;
    try {
      answer = await bounded(cancelled ? Promise.race([asked, cancelled]) : asked, limits.waitMs + 1000, noAnswerWithin(limits.waitMs + 1000));
    } catch (err) {
      // A turn given after the attempt stopped waiting is handed back, not held until its lease ends.
      void asked.then((late) => (late.admitted ? this.report(name, { outcome: 'release', jobId }) : undefined), () => undefined);
      if (err instanceof CancelledFailure) throw err;
      this.log?.warn('breaker:admit-failed', { dependency: name, error: describeError(err) });
      return { admitted: false };
    }
    this.remember(name, answer.view);
    if (!answer.admitted) {
      const { state, why } = answer.view;
      throw ApplicationFailure.create({ type: ErrorType.BreakerOpen, message: `the ${name} breaker stayed ${state} (${why}) for the ${Math.round(limits.waitMs / 1000)} s this attempt could wait; it did not call ${name}` });
    }
    return { admitted: true };
  }

  /** After an attempt succeeded. */
  async succeeded(name: string, jobId: string, turn: BreakerTurn): Promise<void> {
    this.gate(name).succeeded();
    const view = turn.admitted ? undefined : await this.view(name);
    if (turn.admitted || (view && (view.state !== 'closed' || view.suspect))) await this.report(name, { outcome: 'success', jobId });
  }

  /** After an attempt failed in a way the breaker counts. */
  async failed(name: string, failure: unknown, jobId: string): Promise<void> {
    this.gate(name).failed();
    await this.report(name, { outcome: 'failure', jobId, errorType: failureType(failure), message: describeError(failure), at: Date.now() });
  }

  /** After an admitted attempt ended in neither (a job's own error, a cancellation): its turn is handed back. */
  async ended(name: string, jobId: string, turn: BreakerTurn): Promise<void> {
    if (turn.admitted) await this.report(name, { outcome: 'release', jobId });
  }

  /**
   * Starts each dependency's breaker if it is not running (at worker start), so that the first
   * failures find it running instead of waiting for its first workflow task. Best effort.
   */
  async ensureRunning(): Promise<void> {
    await Promise.all(
      this.plans.map((plan) =>
        startBreaker(this.client, this.sharedQueue, plan).catch((err: unknown) => this.log?.warn('breaker:start-failed', { dependency: plan.name, error: describeError(err) })),
      ),
    );
  }

  /** What this worker last read of a breaker (at most {@link viewTtlMs} old); undefined when it cannot be read. */
  view(name: string): Promise<BreakerView | undefined> {
    const plan = this.byName.get(name);
    if (!plan) return Promise.resolve(undefined);
    const hit = this.views.get(name);
    const now = Date.now();
    if (hit && now - hit.at < viewTtlMs) return hit.view;
    const view = bounded(readBreaker(this.client, this.sharedQueue, plan), reportTimeoutMs, noAnswer).then(
      (read) => {
        this.gate(name).observe(read);
        return read;
      },
      (err: unknown) => {
        this.log?.warn('breaker:read-failed', { dependency: name, error: describeError(err) });
        this.views.delete(name);
        return undefined;
      },
    );
    this.views.set(name, { at: now, view });
    return view;
  }

  /** Keeps a breaker's view as the breaker answered it. */
  private remember(name: string, view: BreakerView): void {
    this.views.set(name, { at: Date.now(), view: Promise.resolve(view) });
    this.gate(name).observe(view);
  }

  private async report(name: string, report: Omit<BreakerReport, 'settings'>): Promise<void> {
    const plan = this.byName.get(name);
    if (!plan) return;
    try {
      const sent = sendToBreaker(this.client, this.sharedQueue, plan, { report: { ...report, settings: plan.settings } });
      if (report.outcome === 'failure') this.gate(name).holdUntilAnswered(sent, failureHoldMs);
      this.remember(name, await bounded(sent, reportTimeoutMs, noAnswer));
    } catch (err) {
      this.log?.warn('breaker:report-failed', { dependency: name, outcome: report.outcome, error: describeError(err) });
    }
  }
}

/** What a read, a report or a request for a turn that got no answer in `ms` says. */
function noAnswerWithin(ms: number): string {
  return `no answer within ${ms} ms (is a worker serving the shared task queue?)`;
}
const noAnswer = noAnswerWithin(reportTimeoutMs);

/** The error type a failed attempt reports: its ApplicationFailure type, else its class name. */
function failureType(failure: unknown): string | undefined {
  if (failure instanceof ApplicationFailure) return failure.type ?? undefined;
  return failure instanceof Error ? failure.name : undefined;
}
