// `jobctl dlq list|groups|show`: triage of the dead-letter queues (redrive and discard: cli-dlq-bulk.ts).
import { maskEntry } from '../client/masked-entry';
import { Option, type Command } from 'commander';
import { parseLimit, withClient } from './cli-support';
import { addBulkCommands } from './cli-dlq-bulk';
import { formatDeadLetterEntry, formatJobError, formatTable } from '../client/format';

/** Adds `dlq list|groups|show|redrive|discard` to jobctl. */
export function addDeadLetterCommands(program: Command): void {
  const dlq = program.command('dlq').description('Triage jobs that failed for good: list, group, inspect, redrive, discard');
  const typeOption = () => new Option('--type <type>', 'only this job type');

  dlq
    .command('list')
    .description('List dead-lettered jobs, oldest failure first, a page at a time')
    .addOption(typeOption())
    .option('--fingerprint <f>', 'only this failure group')
    .addOption(new Option('--status <status>', 'entries in this state').choices(['dead-lettered', 'redriven', 'discarded', 'all']).default('dead-lettered'))
    .option('--limit <n>', 'at most this many entries (a page)', '100')
    .option('--cursor <cursor>', 'the page after the one that printed this cursor')
    .option('--json', 'print the entries as JSON (the next page\'s cursor goes to standard error)')
    .action(async (opts: { type?: string; fingerprint?: string; status: 'dead-lettered'; limit: string; cursor?: string; json?: boolean }) => {
      const limit = parseLimit(opts.limit, 1000);
      // Shown with their sensitive fields masked (maskEntry).
      const { entries, nextCursor } = await withClient(async (c) => {
        const page = await c.deadLetters.page({ type: opts.type, fingerprint: opts.fingerprint, status: opts.status, limit, cursor: opts.cursor });
        return { ...page, entries: page.entries.map((e) => maskEntry(e, c.catalog)) };
      });
      if (opts.json) console.log(JSON.stringify(entries, null, 2));
      else {
        const rows = entries.map((e) => ({ id: e.id, type: e.type, status: e.status, attempts: e.attempts, fingerprint: e.fingerprint, lastFailedAt: e.lastFailedAt, error: formatJobError(e.error).slice(0, 80) }));
        console.log(formatTable(rows, ['id', 'type', 'status', 'attempts', 'fingerprint', 'lastFailedAt', 'error']));
      }
      if (nextCursor) console.error(`more entries: add --cursor ${nextCursor}`);
    });

  dlq
    .command('groups')
    .description('Count dead-lettered jobs per failure fingerprint, largest first')
    .addOption(typeOption())
    .option('--limit <n>', 'only the largest n groups')
    .option('--json', 'print as JSON')
    .action(async (opts: { type?: string; limit?: string; json?: boolean }) => {
      const all = await withClient((c) => c.deadLetters.groups(opts.type));
      const groups = opts.limit === undefined ? all : all.slice(0, parseLimit(opts.limit));
      const rows = groups.map((g) => ({ ...g, sample: g.sample.slice(0, 100) }));
      console.log(opts.json ? JSON.stringify(groups, null, 2) : formatTable(rows, ['fingerprint', 'count', 'type', 'errorType', 'firstFailedAt', 'lastFailedAt', 'sample']));
      if (groups.length < all.length) console.error(`${all.length - groups.length} smaller group(s) not shown`);
    });

  dlq
    .command('show')
    .description('Print one entry: the job record, its final error, fingerprint and audit trail (who did what, when, why)')
    .argument('<id>', 'job ID')
    .option('--json', 'print the entry as JSON')
    .action(async (id: string, opts: { json?: boolean }) => {
      const entry = await withClient(async (c) => maskEntry(await c.deadLetters.show(id), c.catalog));
      console.log(opts.json ? JSON.stringify(entry, null, 2) : formatDeadLetterEntry(entry));
    });

  addBulkCommands(dlq);
}
