import type { Client } from '@temporalio/client';
import type { BreakerView } from '../catalog/breaker-state';
import { readBreaker } from '../catalog/breaker-calls';
import { sendOrder } from './breaker-order';
import type { Catalog } from '../catalog/catalog';
import { breakerId, breakerViewQueryName, breakerWorkflowType, dependencyNamePattern, dependencyQueue } from '../catalog/dependency';
import { isNoPoller, workerProbeMs } from './dead-letter-worker-check';
import { lastPollAt, livePollWindowMs } from './queue-pollers';
import { breakerSettings, planDependencies, type DependencyPlan } from '../catalog/dependency-plan';
import { ErrorType, InvalidOptionError, JobsError } from '../shared/errors';
import { whilePolled } from './while-polled';

/** An order sent while a worker polled the shared queue, and not applied once none has polled for 75 s: the server holds it. */
export class BreakerOrderHeldError extends JobsError {
  constructor(taskQueue: string, dependency: string, cause: unknown) {
    super(
      ErrorType.BreakerOrderHeld,
      `no worker has polled the shared task queue ${taskQueue} for ${livePollWindowMs / 1000} s and the order to the breaker of ${dependency} was not applied: the server holds it and applies it when a worker polls again (a server restart first drops it); see jobctl breakers before ordering again`,
      { cause },
    );
  }
}

/** No worker polls the shared queue: an order would wait on the server and apply whenever one comes. */
export class BreakerNoWorkerError extends JobsError {
  constructor(taskQueue: string, detail: string) {
    super(ErrorType.BreakerNoWorker, `${detail} on the shared task queue ${taskQueue}, which runs the breakers: nothing was changed; start a worker that serves it (jobctl doctor says which) and order again`);
  }
}
import { quoteQueryValue } from './job-list';

export type { BreakerView };

/** Longest `reason` or `by` an order keeps. */
const maxOrderText = 200;
/**
 * The circuit breakers of a deployment's dependencies (docs/guide/circuit-breakers.md): read them
 * (from each breaker's memo: no worker needed) and order one open or closed (`jobctl breaker`). An
 * order is applied by the breaker's workflow, so it needs a worker of the shared queue; it is
 * recorded with who gave it and why, as its audit.
 */
export class JobBreakers {
  constructor(
    private readonly client: Client,
    /** The deployment's shared task queue, where the breakers run. */
    private readonly taskQueue: string,
    /** The job types, whose presets name the dependencies; without it, the breakers that ran. */
    private readonly catalog?: Pick<Catalog, 'definitions'>,
  ) {}

  /** The catalog's dependencies, or without a catalog those whose breaker ran. */
  async list(): Promise<BreakerView[]> {
    const plans = this.catalog ? planDependencies(this.taskQueue, this.catalog.definitions) : await this.ranBreakers();
    return Promise.all(plans.map((plan) => readBreaker(this.client, this.taskQueue, plan)));
  }

  /** One dependency's breaker. */
  get(dependency: string): Promise<BreakerView> {
    return readBreaker(this.client, this.taskQueue, this.plan(dependency));
  }

  /**
   * Orders a breaker open (it stays open, no probe, until ordered closed) or closed (at once, its
   * failures forgotten). Resolves to the breaker after the order, which a worker of the shared
   * queue applies: a busy one (a backlog on that queue) late, and the call waits as long as one
   * polls (`onWait` is told after 20 s); once none has polled for 75 s it fails with
   * `jobs:breaker-order-held`, and the server applies the order when a worker returns.
   */
  async order(dependency: string, state: 'open' | 'closed', options: { by?: string; reason?: string; onWait?: () => void } = {}): Promise<BreakerView> {
    const text: { by?: string; reason?: string } = {};
    for (const key of ['by', 'reason'] as const) {
      const value = options[key];
      if (value === undefined) continue;
      const trimmed = typeof value === 'string' ? value.trim() : '';
      // Shown on terminals and pages as one line: a line break or a control character could fake another.
      if (trimmed.length === 0 || [...trimmed].length > maxOrderText || /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(trimmed)) {
        throw new InvalidOptionError([{ path: key, message: `must be 1 to ${maxOrderText} characters on one line, got ${JSON.stringify(value)?.slice(0, 60)}` }]);
      }
      text[key] = trimmed;
    }
    const plan = this.plan(dependency);
    await this.refuseWithoutWorker(plan.name);
    return whilePolled(
      this.client,
      { taskQueue: this.taskQueue, gone: (cause) => new BreakerOrderHeldError(this.taskQueue, dependency, cause), onWait: options.onWait },
      (signal) => this.client.withAbortSignal(signal, () => sendOrder(this.client, this.taskQueue, plan, { state, ...text })),
    );
  }

  /**
   * Refuses an order when no worker serves the shared queue's workflow side: it would wait on the
   * server. A worker that answers the breaker's query serves it; the server refuses the query
   * itself when it saw no poller for 20 s (and counts a long poll that waits, which the pollers'
   * last access does not: an idle worker's is up to a minute old). A breaker that never ran, or
   * no answer in time: the newest poll on any partition decides (queue-pollers.ts).
   */
  private async refuseWithoutWorker(dependency: string): Promise<void> {
    try {
      await this.client.withDeadline(Date.now() + workerProbeMs, () => this.client.workflow.getHandle(breakerId(this.taskQueue, dependency)).query(breakerViewQueryName));
      return;
    } catch (err) {
      if (isNoPoller(err)) throw new BreakerNoWorkerError(this.taskQueue, 'no worker has polled for 20 s');
    }
    const last = await lastPollAt(this.client, this.taskQueue, 'workflow');
    if (Date.now() - last > livePollWindowMs) throw new BreakerNoWorkerError(this.taskQueue, last === 0 ? 'no worker polls' : `no worker has polled for ${Math.round((Date.now() - last) / 1000)} s`);
  }

  /** The plan of a dependency: the catalog's, or without a catalog its defaults (the breaker keeps the settings its workers report). */
  private plan(dependency: string): Pick<DependencyPlan, 'name' | 'taskQueue' | 'settings'> {
    if (typeof dependency !== 'string' || !dependencyNamePattern.test(dependency)) {
      throw new InvalidOptionError([{ path: 'dependency', message: `must be a dependency's name (letters, digits, - and _), got ${JSON.stringify(dependency)?.slice(0, 80)}` }]);
    }
    if (this.catalog) {
      const plans = planDependencies(this.taskQueue, this.catalog.definitions);
      const plan = plans.find((p) => p.name === dependency);
      if (!plan) throw new InvalidOptionError([{ path: 'dependency', message: `no preset of the catalog names ${dependency} (its dependencies: ${plans.map((p) => p.name).join(', ') || 'none'})` }]);
      return plan;
    }
    return { name: dependency, taskQueue: dependencyQueue(this.taskQueue, dependency), settings: breakerSettings({ name: dependency }) };
  }

  /** The dependencies whose breaker workflow ran in this deployment, from the visibility store. */
  private async ranBreakers(): Promise<Pick<DependencyPlan, 'name' | 'settings'>[]> {
    const prefix = breakerId(this.taskQueue, '');
    const names = new Set<string>();
    for await (const w of this.client.workflow.list({ query: `WorkflowType = ${quoteQueryValue(breakerWorkflowType)} AND TaskQueue = ${quoteQueryValue(this.taskQueue)}` })) {
      if (w.workflowId.startsWith(prefix)) names.add(w.workflowId.slice(prefix.length));
    }
    return [...names].sort().map((name) => ({ name, settings: breakerSettings({ name }) }));
  }
}
