import { taskQueueFor } from '../catalog/task-queues';
import { missingSearchAttributeIn } from '../shared/missing-search-attribute';
import { flowControlProblems, flowControlUses, readFlowControl, type FlowControlSupport } from '../client/flow-control-check';
import type { JobClient } from '../client/job-client';
import { quoteQueryValue } from '../client/job-list';
import { readRatePerKey, taskQueueBacklog, type QueueBacklog } from '../client/task-queue-stats';
import type { PausedType } from '../client/job-pauses';
import type { BreakerView } from '../client/breakers';
import { planDependencies } from '../catalog/dependency-plan';
import { limitedTypes, type LimitedType } from '../client/concurrency-limits';
import type { OutboxBacklog } from '../outbox/outbox-backlog';

/** One job type's line of `jobctl stats`. */
export interface JobTypeStats {
  /** The job type; `*` for all jobs together, when the client has no catalog to name the types. */
  type: string;
  /** Jobs enqueued with a delay that has not passed yet: waiting to start. */
  backlog: number;
  /** Jobs due or in progress (including those waiting out a retry delay), not those waiting for a concurrency slot. */
  running: number;
  /** Open jobs waiting for a slot under the type's concurrency limit (`limits.concurrencyPerKey`): neither backlog nor running. */
  waiting: number;
  /** Runs completed, within the namespace's retention. */
  completed: number;
  /** Runs failed, within the namespace's retention (a redriven job's failed run still counts). */
  failed: number;
  /** Entries waiting in the type's dead-letter queue. */
  deadLettered: number;
}

/** What `jobctl stats` prints. */
export interface JobStats {
  /** When the counts were read (ISO 8601). */
  at: string;
  taskQueue: string;
  types: JobTypeStats[];
  /** Tasks due but not yet picked up by a worker, per side of the shared task queue. */
  queue: QueueBacklog[];
  /** The same for every task queue of the catalog's job types, the shared one first. */
  queues: { taskQueue: string; backlog: QueueBacklog[] }[];
  /** The paused types (`jobctl pause`), each with the open jobs it holds: waiting because of the pause, which is not backlog. */
  paused: (PausedType & { holding: number })[];
  /** The types with a concurrency limit that have jobs running or waiting under it: waiting for a slot is not backlog. */
  limited: LimitedType[];
  /** The types with `limits.ratePerKey`: the rate per key the server holds on their queue (unset if no worker has set it yet). Tasks it holds back wait in that queue's backlog. */
  rateLimited: { type: string; taskQueue: string; declared: number; ratePerKey?: number }[];
  /**
   * Where the catalog declares fairness or rates per key: the server's last recorded check (by a
   * worker at start, or `jobctl doctor`; stats itself does not probe), and what it finds will not
   * hold. `checked` is unset when none was recorded.
   */
  flowControl?: { checked?: FlowControlSupport; problems: string[] };
  /**
   * The job outbox of the jobs database (DATABASE_URL, or npm start's SQLite file): jobs committed
   * with `enqueueInTransaction` that no relay has started yet; `error` when the database could not
   * be read. Unset without a jobs database, or one without the outbox's table.
   */
  outbox?: OutboxBacklog | { error: string };
  /** Each dependency's circuit breaker (`jobctl breakers`); its queue's backlog is in {@link queues}. */
  breakers: BreakerView[];
}

/**
 * Counts jobs per type: backlog, running, completed and failed from Temporal's visibility store
 * (eventually consistent: a second or so behind), dead-lettered from the dead-letter queues, and
 * the backlog of each task queue (whether or not a worker serves it). A type with a queue of its own
 * is counted on that queue and on the shared one, where it ran before it moved.
 */
export async function jobStats(jobs: JobClient, now: Date = new Date()): Promise<JobStats> {
  const client = jobs.temporal;
  const count = async (query: string) => {
    try {
      return (await client.workflow.count(query)).count;
    } catch (err) {
      throw missingSearchAttributeIn(err, client.options.namespace) ?? err;
    }
  };
  // Without a catalog the types cannot be named: every job counts in one row, on the shared queue.
  const rows = jobs.catalog?.definitions.map((d) => ({ type: d.type, queues: [...new Set([jobs.taskQueue, taskQueueFor(jobs.taskQueue, d)])] })) ?? [{ type: '*', queues: [jobs.taskQueue] }];
  // A dependency's queue holds the attempts its open breaker stops: its backlog is theirs.
  const dependencyQueues = planDependencies(jobs.taskQueue, jobs.catalog?.definitions ?? []).map((d) => d.taskQueue);
  const allQueues = [...new Set([...rows.flatMap((r) => r.queues), ...dependencyQueues])];
  const rated = (jobs.catalog?.definitions ?? []).filter((d) => d.limits?.ratePerKey !== undefined);
  const uses = flowControlUses(jobs.catalog?.definitions ?? []);
  const [types, deadLetters, queues, paused, limited, rateLimited, checked, breakers] = await Promise.all([
    Promise.all(
      rows.map(async ({ type, queues }) => {
        const base = `${type === '*' ? 'JobType IS NOT NULL' : `JobType = ${quoteQueryValue(type)}`} AND TaskQueue IN (${queues.map(quoteQueryValue).join(', ')})`;
        const [open, backlog, completed, failed] = await Promise.all([
          count(`${base} AND ExecutionStatus = 'Running'`),
          count(`${base} AND ExecutionStatus = 'Running' AND ExecutionTime > '${now.toISOString()}'`),
          count(`${base} AND ExecutionStatus = 'Completed'`),
          count(`${base} AND ExecutionStatus = 'Failed'`),
        ]);
        return { type, backlog, running: Math.max(0, open - backlog), completed, failed };
      }),
    ),
    jobs.deadLetters.counts(),
    Promise.all(allQueues.map(async (taskQueue) => ({ taskQueue, backlog: await taskQueueBacklog(client, taskQueue) }))),
    jobs.pauses.list().then((list) => Promise.all(list.map(async (p) => ({ ...p, holding: await jobs.pauses.openJobs(p.type) })))),
    limitedTypes(client, jobs.taskQueue),
    Promise.all(
      rated.map(async (d) => {
        const taskQueue = taskQueueFor(jobs.taskQueue, d);
        const { ratePerKey } = await readRatePerKey(client, taskQueue);
        return { type: d.type, taskQueue, declared: d.limits!.ratePerKey!, ...(ratePerKey === undefined ? {} : { ratePerKey }) };
      }),
    ),
    uses.fairness || uses.ratePerKey ? readFlowControl(client, jobs.taskQueue) : undefined,
    jobs.breakers.list(),
  ]);
  return {
    at: now.toISOString(),
    taskQueue: jobs.taskQueue,
    types: types.map((t) => ({
      ...t,
      // The limiter's count is read beside the visibility counts: held within what is open.
      ...waitingFor(t, limited),
      deadLettered: t.type === '*' ? Object.values(deadLetters).reduce((n, c) => n + c['dead-lettered'], 0) : (deadLetters[t.type]?.['dead-lettered'] ?? 0),
    })),
    queue: queues[0]!.backlog,
    queues,
    paused,
    limited,
    rateLimited,
    breakers,
    ...(uses.fairness || uses.ratePerKey ? { flowControl: { ...(checked ? { checked } : {}), problems: checked ? flowControlProblems(checked, uses) : [] } } : {}),
  };
}

/** A type's running count split into running and waiting for a slot. */
function waitingFor(t: { type: string; running: number }, limited: LimitedType[]): { running: number; waiting: number } {
  const waiting = Math.min(t.running, limited.find((l) => l.type === t.type)?.waiting ?? 0);
  return { running: t.running - waiting, waiting };
}
