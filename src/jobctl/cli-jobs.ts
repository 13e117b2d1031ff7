// `jobctl cancel|list|types`: cancelling and listing jobs (over HTTP when it answers), and the catalog's job types.
import { Option, type Command } from 'commander';
import { readCreatedAt } from '../catalog/created-at';
import { projectCatalog } from './cli-catalog';
import { flowControlOf, formatFlowControl } from './cli-fairness';
import { parseLimit, withClient } from './cli-support';
import { formatTable } from '../client/format';
import { listableStatuses, type ListableStatus } from '../client/job-list-pages';
import { readOverHttp } from './http/http-reads';

/** Adds `cancel`. */
export function addCancelCommand(program: Command): void {
  program
    .command('cancel')
    .description('Cancel a job: its attempt is cancelled, completed steps are compensated, and it ends as cancelled')
    .argument('<id>', 'job ID')
    .action(async (id: string) => {
      await withClient((client) => client.cancel(id));
      console.log(`cancellation requested for ${id}`);
    });
}

/** Adds `list`. */
export function addListCommand(program: Command): void {
  program
    .command('list')
    .description('List jobs from Temporal visibility, newest first (dead-lettered: from the dead-letter queues, oldest failure first)')
    .option('--type <type>', 'only this job type')
    .addOption(new Option('--status <status>', 'only jobs in this state').choices([...listableStatuses, 'dead-lettered']))
    .option('--limit <n>', 'at most this many', '50')
    .option('--json', 'print as JSON')
    .action(async (opts: { type?: string; status?: ListableStatus | 'dead-lettered'; limit: string; json?: boolean }) => {
      const limit = parseLimit(opts.limit);
      const status = opts.status;
      // Over HTTP when it answers (http/http-reads.ts); dead letters come from the DLQ workflows, over gRPC.
      const listed = status === 'dead-lettered' ? undefined : await readOverHttp((reader) => reader.list({ type: opts.type, status, limit }));
      const rows = listed ?? await withClient(async (client) => {
        if (opts.status !== 'dead-lettered') return client.list({ type: opts.type, status: opts.status, limit });
        const { entries } = await client.deadLetters.page({ type: opts.type, limit: Math.min(limit, 1000) });
        // Entries handed off before 0.3 do not carry createdAt: read it from the job's first run.
        const createdAt = (e: (typeof entries)[number]) => e.createdAt ?? readCreatedAt(client.temporal, e.id).then((d) => d.toISOString(), () => undefined);
        return Promise.all(entries.map(async (e) => ({ id: e.id, type: e.type, status: 'dead-lettered', createdAt: await createdAt(e), closedAt: e.lastFailedAt })));
      });
      console.log(opts.json ? JSON.stringify(rows, null, 2) : formatTable(rows as { id: string; type: string; status: string; createdAt?: string; closedAt?: string }[], ['id', 'type', 'status', 'createdAt', 'closedAt']));
    });
}

/** Adds `types`. */
export function addTypesCommand(program: Command): void {
  program
    .command('types')
    .description("List the catalog's job types")
    .addOption(new Option('--json', 'print as JSON'))
    .action((opts: { json?: boolean }) => {
      const rows = projectCatalog('required', 'types')!.definitions.map((d) => ({ type: d.type, description: d.description, ...flowControlOf(d) }));
      // Padded to the longest name: a team's type names may be longer than the built-in ones.
      const width = Math.max(0, ...rows.map((r) => r.type.length)) + 2;
      console.log(opts.json ? JSON.stringify(rows, null, 2) : rows.map((r) => `${r.type.padEnd(width)}${r.description}${formatFlowControl(r)}`).join('\n'));
    });
}
