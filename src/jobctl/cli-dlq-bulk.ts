// `jobctl dlq redrive|discard`: one entry, a failure group, or every dead-lettered entry. A bulk
// operation streams: it reads the DLQ a page at a time, prints each outcome as it happens, and
// reports its progress on standard error, so any number of entries runs in bounded memory.
import type { Command } from 'commander';
import type { DeadLetterSelection, DiscardOutcome, RedriveOutcome } from '../client/dead-letters';
import { JobFailedError as BulkFailedError, UsageError, jobctlUser, parseJson, parseRate, withClient } from './cli-support';
import type { CatalogNeed } from './cli-catalog';
import { openJobsDatabase } from './cli-database';
import { formatRedrivePlan, formatTable } from '../client/format';
import type { JobClient } from '../client/job-client';
import { readRedrivePlan } from '../client/redrive-plan';
import { startProgress } from './progress';
import { InterruptedError } from './cli-errors';

interface BulkFlags {
  type?: string;
  concurrency?: string;
  fingerprint?: string;
  all?: boolean;
  dryRun?: boolean;
  rate?: string;
  reason?: string;
  json?: boolean;
}

/** Rows of a dry run's table printed at once. */
const tableChunk = 200;

/** The selection the flags name; exactly one of an ID, `--fingerprint` or `--all`. */
function selection(command: string, id: string | undefined, opts: BulkFlags): DeadLetterSelection {
  const selectors = [id !== undefined, opts.fingerprint !== undefined, opts.all === true].filter(Boolean).length;
  if (selectors !== 1) throw new UsageError(`dlq ${command}: give exactly one of <id>, --fingerprint <f> or --all`);
  return { type: opts.type, fingerprint: opts.fingerprint, id };
}

/** Parses `--concurrency`: a whole number from 1 to 64. */
function parseConcurrency(opts: BulkFlags): number {
  const n = Number(opts.concurrency ?? 8);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new UsageError(`--concurrency: must be a whole number from 1 to 64, got ${JSON.stringify(opts.concurrency)}`);
  return n;
}

/**
 * An operator's stop for a bulk operation: the first SIGINT or SIGTERM aborts `signal` (no other
 * call starts; those in flight end and are reported); a second one quits at once, as usual.
 */
function interruption(): { signal: AbortSignal; received: () => NodeJS.Signals | undefined; dispose: () => void } {
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const onSignal = (name: NodeJS.Signals) => {
    received = name;
    dispose();
    controller.abort();
    process.stderr.write(`jobctl: ${name}: no other entry is sent; the calls in flight end and are reported (${name} again quits without them)\n`);
  };
  const dispose = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  return { signal: controller.signal, received: () => received, dispose };
}

/** Exit codes of a command stopped by a signal: 128 + its number. */
const signalExitCodes: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };

/**
 * Prints outcomes as they come (JSON: one array, written element by element), then what was done,
 * however the operation ended (all done, stopped, interrupted); throws if any failed.
 */
async function report<O extends { id: string; error?: string; dryRun?: boolean }>(
  verb: { past: string; base: string },
  run: (signal: AbortSignal) => AsyncIterable<O>,
  opts: BulkFlags,
  line: (o: O) => string,
  dryRow: (o: O) => Record<string, string>,
  total?: number,
): Promise<void> {
  let done = 0;
  let failed = 0;
  let firstError: string | undefined;
  let rows: Record<string, string>[] = [];
  const started = Date.now();
  // Done, failed, rate and time left: a bar on a terminal, a line every 5 s otherwise.
  const progress = opts.dryRun ? undefined : startProgress({ label: verb.base, total });
  const flushRows = () => {
    if (rows.length > 0) console.log(formatTable(rows, Object.keys(rows[0]!)));
    rows = [];
  };
  if (opts.json) process.stdout.write('[');
  const interrupt = interruption();
  let stop: { err: unknown } | undefined;
  const summary = () => `${done - failed} ${verb.past}, ${failed} failed, in ${((Date.now() - started) / 1000).toFixed(1)} s`;
  try {
    for await (const o of run(interrupt.signal)) {
      if (opts.json) process.stdout.write(`${done === 0 ? '\n' : ',\n'}${JSON.stringify(o)}`);
      else if (o.dryRun) {
        rows.push(dryRow(o));
        if (rows.length >= tableChunk) flushRows();
      } else (progress?.print ?? console.log)(line(o));
      done += 1;
      if (o.error) {
        failed += 1;
        firstError ??= o.error;
      }
      progress?.tick(o.error !== undefined);
    }
  } catch (err) {
    stop = { err };
  } finally {
    progress?.stop();
    interrupt.dispose();
  }
  if (opts.json) console.log(done === 0 ? ']' : '\n]');
  if (stop) {
    // Stopped (no worker answers): what was done before the stop, then why.
    if (!opts.dryRun) console.error(`jobctl: stopped after ${summary()}; no entry after the stop was sent`);
    throw stop.err;
  }
  if (opts.dryRun && !opts.json) {
    flushRows();
    console.log(`dry run: would ${verb.base} ${done} job(s); nothing was changed`);
  }
  const signal = interrupt.received();
  if (signal) throw new InterruptedError(signalExitCodes[signal] ?? 130, `jobctl: ${signal}: ${summary()}; no other entry was sent`);
  if (!opts.dryRun) console.error(`jobctl: ${summary()}`);
  if (failed > 0) throw new BulkFailedError(`${failed} of ${done} ${verb.base}(s) failed; first: ${firstError}`);
}

/** How many dead-lettered entries the selection holds, for the progress's time left; unknown if the count cannot be read. */
async function selectedTotal(c: JobClient, selected: DeadLetterSelection): Promise<number | undefined> {
  try {
    if (selected.id !== undefined) return 1;
    if (selected.fingerprint !== undefined) return (await c.deadLetters.groups(selected.type)).filter((g) => g.fingerprint === selected.fingerprint).reduce((n, g) => n + g.count, 0);
    const counts = await c.deadLetters.counts();
    return Object.entries(counts).reduce((n, [type, byStatus]) => (selected.type === undefined || type === selected.type ? n + byStatus['dead-lettered'] : n), 0);
  } catch {
    return undefined;
  }
}

/** Jobs of a dry run whose step plan is printed. */
const plannedJobs = 5;

/** The ledger's step plan of the first few selected jobs: what their failed executions did, and so what a redrive runs again. */
async function printStepPlans(c: JobClient, selected: DeadLetterSelection): Promise<void> {
  const entries = await c.deadLetters.list({ ...selected, status: 'dead-lettered', limit: plannedJobs });
  if (entries.length === 0) return;
  const db = await openJobsDatabase();
  try {
    const plans = await Promise.all(entries.map((e) => readRedrivePlan(c, db, e)));
    console.log(`\nstep plan${entries.length === plannedJobs ? ` of the first ${plannedJobs}` : ''} (a redrive starts a new execution: every step runs again):`);
    for (const plan of plans) console.log(formatRedrivePlan(plan));
    const doubled = plans.reduce((n, p) => n + p.doubleEffects.length, 0);
    if (doubled > 0) console.log(`${doubled} step(s) done and not undone: a redrive runs them again`);
  } finally {
    await db?.destroy();
  }
}

/** Adds `dlq redrive` and `dlq discard`. */
export function addBulkCommands(dlq: Command): void {
  dlq
    .command('redrive')
    .description('Start dead-lettered jobs again under the same job ID')
    .argument('[id]', 'the job to redrive')
    .option('--type <type>', 'with --fingerprint or --all: only this job type')
    .option('--fingerprint <f>', 'redrive every job of this failure group')
    .option('--all', 'redrive every dead-lettered job')
    .option('--dry-run', 'print what would be redriven, and the step plan of the first few from the ledger, and change nothing')
    .option('--rate <n/s>', 'at most this many restarts per second, e.g. 5/s')
    .option('--concurrency <n>', 'at most this many restarts in flight at once', '8')
    .option('--patch <json>', 'JSON Merge Patch applied to each payload, validated against every entry before anything restarts')
    .option('--reason <text>', 'recorded in the audit trail')
    .option('--json', 'print the outcomes as JSON')
    .action(async (id: string | undefined, opts: BulkFlags & { patch?: string }) => {
      const selected = selection('redrive', id, opts);
      const ratePerSecond = opts.rate === undefined ? undefined : parseRate(opts.rate);
      const patch = opts.patch === undefined ? undefined : parseJson(opts.patch, '--patch');
      const by = jobctlUser();
      // A patch is checked against the catalog; a dry run's step plan names the type's declared steps when it is here.
      const catalogNeed: CatalogNeed = patch !== undefined ? 'required' : opts.dryRun ? 'optional' : 'none';
      await withClient(async (c) => {
        if (id !== undefined && !opts.dryRun) {
          // One job: its own error (not found: exit 1; not dead-lettered or a bad patch: exit 2).
          const { runId } = await c.deadLetters.redrive(id, { patch, reason: opts.reason, by });
          return console.log(opts.json ? JSON.stringify([{ id, runId }], null, 2) : `${id}: redriven (run ${runId})`);
        }
        if (id !== undefined) await c.deadLetters.show(id);
        await report<RedriveOutcome>(
          { past: 'redriven', base: 'redrive' },
          (signal) => c.deadLetters.redriveAll(selected, { patch, reason: opts.reason, by, ratePerSecond, concurrency: parseConcurrency(opts), dryRun: opts.dryRun, signal }),
          opts,
          (o) => (o.error ? `${o.id}: not redriven: ${o.error}` : `${o.id}: redriven (run ${o.runId})`),
          (o) => ({ id: o.id, type: o.type, wouldStartWith: JSON.stringify(o.payload) }),
          opts.dryRun ? undefined : await selectedTotal(c, selected),
        );
        if (opts.dryRun && !opts.json) await printStepPlans(c, selected);
      }, catalogNeed, 'dlq redrive --patch');
    });

  dlq
    .command('discard')
    .description('Give up on dead-lettered jobs; each entry stays, marked discarded, with the reason in its audit trail')
    .argument('[id]', 'the job to discard')
    .option('--type <type>', 'with --fingerprint or --all: only this job type')
    .option('--fingerprint <f>', 'discard every job of this failure group')
    .option('--all', 'discard every dead-lettered job')
    .option('--dry-run', 'print what would be discarded and change nothing')
    .option('--rate <n/s>', 'at most this many discards per second, e.g. 20/s')
    .option('--concurrency <n>', 'at most this many discards in flight at once', '8')
    .option('--reason <text>', 'recorded in the audit trail')
    .option('--json', 'print the outcomes as JSON')
    .action(async (id: string | undefined, opts: BulkFlags) => {
      const selected = selection('discard', id, opts);
      const ratePerSecond = opts.rate === undefined ? undefined : parseRate(opts.rate);
      const by = jobctlUser();
      await withClient(async (c) => {
        if (id !== undefined && !opts.dryRun) {
          await c.deadLetters.discard(id, { reason: opts.reason, by });
          return console.log(opts.json ? JSON.stringify([{ id, discarded: true }], null, 2) : `${id}: discarded`);
        }
        if (id !== undefined) await c.deadLetters.show(id);
        await report<DiscardOutcome>(
          { past: 'discarded', base: 'discard' },
          (signal) => c.deadLetters.discardAll(selected, { reason: opts.reason, by, ratePerSecond, concurrency: parseConcurrency(opts), dryRun: opts.dryRun, signal }),
          opts,
          (o) => (o.error ? `${o.id}: not discarded: ${o.error}` : `${o.id}: discarded`),
          (o) => ({ id: o.id, type: o.type }),
          opts.dryRun ? undefined : await selectedTotal(c, selected),
        );
      });
    });
}
