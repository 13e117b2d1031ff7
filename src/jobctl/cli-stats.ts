// `jobctl stats`: how much work there is per job type, and whether the workers keep up.
import type { Command } from 'commander';
import { withClient } from './cli-support';
import { formatTable } from '../client/format';
import { jobStats, type JobStats } from './job-stats';
import { openJobsDatabase } from './cli-database';
import { describeError } from '../shared/errors';
import { breakerLine } from './cli-breakers';

/** Adds `stats [--json]` to jobctl. */
export function addStatsCommand(program: Command): void {
  program
    .command('stats')
    .description('Count jobs per type (backlog, waiting for a concurrency slot, running, completed, failed, dead-lettered) and the task queue backlog')
    .option('--json', 'print as JSON')
    .action(async (opts: { json?: boolean }) => {
      const [stats, outbox] = await Promise.all([withClient((client) => jobStats(client), 'optional'), readOutbox()]);
      if (outbox) stats.outbox = outbox;
      console.log(opts.json ? JSON.stringify(stats, null, 2) : formatStats(stats));
    });
}

/** The table, then one line per side of the task queue. */
export function formatStats(stats: JobStats): string {
  const rows = stats.types.map((t) => ({ ...t, 'dead-lettered': t.deadLettered }));
  const table = formatTable(rows, ['type', 'backlog', 'waiting', 'running', 'completed', 'failed', 'dead-lettered']);
  const queues = stats.queues.flatMap(({ taskQueue, backlog }) => [
    `task queue ${taskQueue}:`,
    ...backlog.map((q) => `  ${q.queueType} tasks waiting: ${q.count}${q.count > 0 ? ` (oldest ${q.ageSeconds.toFixed(1)}s)` : ''}`),
  ]);
  const paused = stats.paused.map((p) => `paused ${p.type} since ${p.since}${p.by ? ` by ${p.by}` : ''}${p.reason ? ` (${p.reason})` : ''}: holding ${p.holding} open job(s)`);
  const limited = stats.limited.map(
    (l) => `limited ${l.type} (at most ${l.limit} at once per key): ${l.running} running, ${l.waiting} waiting for a slot over ${l.keys} key(s)${l.oldestWaitingSince ? `, oldest waiting since ${l.oldestWaitingSince}` : ''}`,
  );
  const rated = stats.rateLimited.map(
    (r) => `rate per key ${r.type}: ${r.ratePerKey === undefined ? `${r.declared}/s declared, not set on the server yet (a worker sets it at start)` : `at most ${r.ratePerKey}/s per key`} on ${r.taskQueue}; tasks it holds back wait in that queue's backlog`,
  );
  const breakers = stats.breakers.map((b) => `breaker ${breakerLine(b)}`);
  const notes = [...paused, ...limited, ...rated, ...breakers, ...flowControlLines(stats), ...outboxLines(stats)];
  return [table, ...(notes.length ? ['', ...notes] : []), '', ...queues].join('\n');
}

/** The job outbox's line: what transactions committed and no relay has started yet. */
function outboxLines(stats: JobStats): string[] {
  const o = stats.outbox;
  if (!o) return [];
  if ('error' in o) return [`job outbox: could not be read: ${o.error}`];
  const oldest = o.waiting > 0 ? ` (oldest ${o.oldestAgeSeconds.toFixed(1)}s)` : '';
  const failing = o.failing > 0 ? `, ${o.failing} failing to start (jobctl doctor; the worker's outbox:start-failed lines say why)` : '';
  const conflicts = o.conflicts > 0 ? `, ${o.conflicts} not started: their ID is another job's` : '';
  return [`job outbox: ${o.waiting} committed job(s) waiting for a relay${oldest}${failing}${conflicts}`];
}

/** The outbox of the jobs database, when there is one with the outbox's table. */
async function readOutbox(): Promise<JobStats['outbox']> {
  const db = await openJobsDatabase().catch((err: unknown) => ({ error: describeError(err) }));
  if (!db || 'error' in db) return db;
  try {
    const { readOutboxBacklog } = await import('../outbox/outbox-backlog.js');
    return await readOutboxBacklog(db);
  } catch (err) {
    // A database that no worker of this release has migrated has no outbox: nothing to show.
    return /job_outbox/.test(describeError(err)) ? undefined : { error: describeError(err) };
  } finally {
    await db.destroy();
  }
}

/** The server's last recorded flow-control check, where the catalog declares fairness or rates per key. */
function flowControlLines(stats: JobStats): string[] {
  const fc = stats.flowControl;
  if (!fc) return [];
  if (!fc.checked) return ['flow control on the server: not checked yet (a worker checks at start; jobctl doctor checks now)'];
  const c = fc.checked;
  const seen = `fairness ${c.fairness}, priority order ${c.priority}, ${c.partitions} partition(s), checked ${c.checkedAt}`;
  if (fc.problems.length === 0) return [`flow control on the server: ${seen}: keys, weights and rates hold`];
  return [`flow control on the server: ${seen}:`, ...fc.problems.map((p) => `  ${p}`), '  fix: see jobctl doctor'];
}
