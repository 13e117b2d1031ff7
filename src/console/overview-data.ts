// What the overview shows, read from Temporal: per job type, counts from visibility (running,
// scheduled, completed and failed in the last hour) and the DLQ's size; per task queue, the
// backlog and its age and the workers polling it; and an hour of completions and failures in
// five-minute buckets for the charts. Eventually consistent, like `jobctl stats`.
import type { JobClient } from '../client/job-client';
import { taskQueueFor } from '../catalog/task-queues';
import { quoteQueryValue } from '../client/job-list';
import { taskQueueBacklog, type QueueBacklog } from '../client/task-queue-stats';
import type { Kysely } from 'kysely';
import { readOutboxBacklog, type OutboxBacklog } from '../outbox/outbox-backlog';
import { planDependencies } from '../catalog/dependency-plan';

/** One job type's row. */
export interface TypeOverview {
  type: string;
  taskQueue: string;
  /** Enqueued with a delay that has not passed. */
  scheduled: number;
  /** Due or in progress (including those waiting to retry). */
  running: number;
  completedLastHour: number;
  failedLastHour: number;
  /** Entries waiting in its dead-letter queue. */
  deadLettered: number;
}

/** One task queue's row. */
export interface QueueOverview {
  taskQueue: string;
  sides: QueueBacklog[];
}

/** The last hour in buckets, oldest first. */
export interface Throughput {
  /** Each bucket's start, in seconds since the epoch. */
  at: number[];
  completed: number[];
  failed: number[];
}

/** The overview page's data. */
export interface Overview {
  at: string;
  types: TypeOverview[];
  queues: QueueOverview[];
  throughput: Throughput;
  /** The job outbox of the jobs database: jobs committed and not yet started; undefined without a database, or one without the outbox's table. */
  outbox?: OutboxBacklog;
}

const bucketMs = 5 * 60_000;
const hourMs = 3600_000;

/** Reads the overview (about 4 counts per job type and 24 for the charts; one query of the jobs database for its outbox). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any catalog's database; only the outbox is read
export async function readOverview(jobs: JobClient, now = new Date(), db?: Kysely<any>): Promise<Overview> {
  const client = jobs.temporal;
  const count = async (query: string) => (await client.workflow.count(query)).count;
  const definitions = jobs.catalog?.definitions ?? [];
  const hourAgo = new Date(now.getTime() - hourMs).toISOString();
  const [types, deadLetters, queues, throughput, outbox] = await Promise.all([
    Promise.all(
      definitions.map(async (d) => {
        const base = `JobType = ${quoteQueryValue(d.type)}`;
        const [open, scheduled, completedLastHour, failedLastHour] = await Promise.all([
          count(`${base} AND ExecutionStatus = 'Running'`),
          count(`${base} AND ExecutionStatus = 'Running' AND ExecutionTime > '${now.toISOString()}'`),
          count(`${base} AND ExecutionStatus = 'Completed' AND CloseTime > '${hourAgo}'`),
          count(`${base} AND ExecutionStatus = 'Failed' AND CloseTime > '${hourAgo}'`),
        ]);
        return { type: d.type, taskQueue: taskQueueFor(jobs.taskQueue, d), scheduled, running: Math.max(0, open - scheduled), completedLastHour, failedLastHour };
      }),
    ),
    jobs.deadLetters.counts(),
    Promise.all([
      ...[...new Set([jobs.taskQueue, ...definitions.map((d) => taskQueueFor(jobs.taskQueue, d))])].map(async (taskQueue) => ({ taskQueue, sides: await taskQueueBacklog(client, taskQueue) })),
      // A dependency's queue runs activities only: its workflow side is not shown.
      ...planDependencies(jobs.taskQueue, definitions).map(async ({ taskQueue }) => ({ taskQueue, sides: (await taskQueueBacklog(client, taskQueue)).filter((s) => s.queueType === 'activity') })),
    ]),
    readThroughput(count, now),
    // A database not migrated by a worker of this release has no outbox yet: the page leaves it out.
    db ? readOutboxBacklog(db, now).catch(() => undefined) : undefined,
  ]);
  return {
    at: now.toISOString(),
    types: types.map((t) => ({ ...t, deadLettered: deadLetters[t.type]?.['dead-lettered'] ?? 0 })),
    queues,
    throughput,
    ...(outbox ? { outbox } : {}),
  };
}

async function readThroughput(count: (q: string) => Promise<number>, now: Date): Promise<Throughput> {
  const end = Math.ceil(now.getTime() / bucketMs) * bucketMs;
  const starts = Array.from({ length: hourMs / bucketMs }, (_, i) => end - hourMs + i * bucketMs);
  const window = (start: number) => `CloseTime >= '${new Date(start).toISOString()}' AND CloseTime < '${new Date(start + bucketMs).toISOString()}'`;
  const [completed, failed] = await Promise.all(
    (['Completed', 'Failed'] as const).map((status) => Promise.all(starts.map((s) => count(`JobType IS NOT NULL AND ExecutionStatus = '${status}' AND ${window(s)}`)))),
  );
  return { at: starts.map((s) => s / 1000), completed: completed!, failed: failed! };
}
