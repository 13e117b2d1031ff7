// `jobctl dlq …`: triage of the dead-letter queues.
import { Option, type Command } from 'commander';
import type { DeadLetterEntry } from '../workflow/dead-letter-entries';
import { JobFailedError as RedriveFailedError, UsageError, parseJson, parseRate, withClient } from './cli-support';
import { formatJobError, formatTable } from './format';

interface RedriveOptions {
  fingerprint?: string;
  all?: boolean;
  dryRun?: boolean;
  rate?: string;
  patch?: string;
  reason?: string;
  json?: boolean;
}

/** Adds `dlq list|groups|show|redrive|discard` to jobctl. */
export function addDeadLetterCommands(program: Command): void {
  const dlq = program.command('dlq').description('Triage jobs that failed for good: list, group, inspect, redrive, discard');
  const typeOption = () => new Option('--type <type>', 'only this job type');

  dlq
    .command('list')
    .description('List dead-lettered jobs, oldest failure first')
    .addOption(typeOption())
    .option('--fingerprint <f>', 'only this failure group')
    .addOption(new Option('--status <status>', 'entries in this state').choices(['dead-lettered', 'redriven', 'discarded', 'all']).default('dead-lettered'))
    .option('--json', 'print the entries as JSON')
    .action(async (opts: { type?: string; fingerprint?: string; status: 'dead-lettered'; json?: boolean }) => {
      const entries = await withClient((c) => c.deadLetters.list({ type: opts.type, fingerprint: opts.fingerprint, status: opts.status }));
      if (opts.json) return console.log(JSON.stringify(entries, null, 2));
      const rows = entries.map((e) => ({ id: e.id, type: e.type, status: e.status, attempts: e.attempts, fingerprint: e.fingerprint, lastFailedAt: e.lastFailedAt, error: formatJobError(e.error).slice(0, 80) }));
      console.log(formatTable(rows, ['id', 'type', 'status', 'attempts', 'fingerprint', 'lastFailedAt', 'error']));
    });

  dlq
    .command('groups')
    .description('Count dead-lettered jobs per failure fingerprint, largest first')
    .addOption(typeOption())
    .option('--json', 'print as JSON')
    .action(async (opts: { type?: string; json?: boolean }) => {
      const groups = await withClient((c) => c.deadLetters.groups(opts.type));
      const rows = groups.map((g) => ({ ...g, sample: g.sample.slice(0, 100) }));
      console.log(opts.json ? JSON.stringify(groups, null, 2) : formatTable(rows, ['fingerprint', 'count', 'type', 'errorType', 'sample']));
    });

  dlq
    .command('show')
    .description('Print one entry: the job record, its final error, fingerprint and audit trail')
    .argument('<id>', 'job ID')
    .action(async (id: string) => {
      console.log(JSON.stringify(await withClient((c) => c.deadLetters.show(id)), null, 2));
    });

  dlq
    .command('redrive')
    .description('Start dead-lettered jobs again under the same job ID')
    .argument('[id]', 'the job to redrive')
    .option('--fingerprint <f>', 'redrive every job of this failure group')
    .option('--all', 'redrive every dead-lettered job')
    .option('--dry-run', 'print what would be redriven and change nothing')
    .option('--rate <n/s>', 'at most this many restarts per second, e.g. 5/s')
    .option('--patch <json>', 'JSON Merge Patch applied to each payload, validated before anything restarts')
    .option('--reason <text>', 'recorded in the audit trail')
    .option('--json', 'print the outcome as JSON')
    .action(async (id: string | undefined, opts: RedriveOptions) => {
      const selectors = [id !== undefined, opts.fingerprint !== undefined, opts.all === true].filter(Boolean).length;
      if (selectors !== 1) throw new UsageError('dlq redrive: give exactly one of <id>, --fingerprint <f> or --all');
      const ratePerSecond = opts.rate === undefined ? undefined : parseRate(opts.rate);
      const patch = opts.patch === undefined ? undefined : parseJson(opts.patch, '--patch');
      await withClient(async (c) => {
        if (id !== undefined && !opts.dryRun) {
          // One job: its own error (not found: exit 1; not dead-lettered or a bad patch: exit 2).
          const { runId } = await c.deadLetters.redrive(id, { patch, reason: opts.reason });
          return console.log(opts.json ? JSON.stringify([{ id, runId }], null, 2) : `${id}: redriven (run ${runId})`);
        }
        const entries: DeadLetterEntry[] = id !== undefined ? [await c.deadLetters.show(id)] : await c.deadLetters.list({ fingerprint: opts.fingerprint });
        const outcomes = await c.deadLetters.redriveMany(entries, { patch, reason: opts.reason, ratePerSecond, dryRun: opts.dryRun });
        if (opts.json) console.log(JSON.stringify(outcomes, null, 2));
        else if (opts.dryRun) {
          const rows = outcomes.map((o) => ({ id: o.id, type: o.type, wouldStartWith: JSON.stringify(o.payload) }));
          console.log(`dry run: would redrive ${rows.length} job(s); nothing was changed\n${formatTable(rows, ['id', 'type', 'wouldStartWith'])}`);
        } else for (const o of outcomes) console.log(o.error ? `${o.id}: not redriven: ${o.error}` : `${o.id}: redriven (run ${o.runId})`);
        const failed = outcomes.filter((o) => o.error);
        if (failed.length > 0) throw new RedriveFailedError(`${failed.length} of ${outcomes.length} redrive(s) failed; first: ${failed[0]!.error}`);
      }, patch === undefined ? 'none' : 'required', 'dlq redrive --patch');
    });

  dlq
    .command('discard')
    .description('Give up on a dead-lettered job; the entry stays, marked discarded, in the audit trail')
    .argument('<id>', 'job ID')
    .option('--reason <text>', 'recorded in the audit trail')
    .action(async (id: string, opts: { reason?: string }) => {
      await withClient((c) => c.deadLetters.discard(id, opts.reason));
      console.log(`${id}: discarded`);
    });
}
