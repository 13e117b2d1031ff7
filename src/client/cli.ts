// jobctl: the command-line face of JobClient. Exit codes: 0 ok, 2 bad input, 1 operational error.
import { WorkflowFailedError } from '@temporalio/client';
import { Command, CommanderError, Option } from 'commander';
import { ConfigError, ErrorType, IdConflictError, InvalidOptionError, InvalidPayloadError, JobsError, ScheduleExistsError, UnknownJobTypeError, describe } from '../shared/errors';
import { addCodecCommands } from './cli-codec';
import { addConsoleCommand } from './cli-console';
import { addDeadLetterCommands } from './cli-dlq';
import { addDoctorCommand } from './cli-doctor';
import { addFairnessOptions, flowControlOf, formatFlowControl, parseFairnessFlags, type FairnessFlags } from './cli-fairness';
import { addPauseCommands } from './cli-pause';
import { addScheduleCommands } from './cli-schedule';
import { addStatsCommand } from './cli-stats';
import { DeadLetterError } from './dead-letters';
import { JobFailedError, UsageError, parseDuration, parseJson, parseLimit, parsePriority, readJsonArg, withClient } from './cli-support';
import { formatJobError, formatJobRecord, formatTable, sanitizeForTerminal } from './format';
import { listableStatuses, type ListableStatus } from './job-list';
import { redact, secretsFromEnv } from '../shared/redact';
import { NoCatalogError } from '../catalog/catalog-error';
import { prepareJob } from '../catalog/prepare-job';
import { readCreatedAt } from '../catalog/created-at';
import { projectCatalog, setCatalogFlag } from './cli-catalog';
import { windowFlags, type EnqueueFlags } from './cli-windows';

// No catalog is bad input too: --catalog (or DURABLE_JOBS_CATALOG, or package.json) fixes it.
const badInput = [UsageError, InvalidPayloadError, InvalidOptionError, UnknownJobTypeError, ConfigError, NoCatalogError, IdConflictError, ScheduleExistsError];

/** Exit 2 for what the user can fix on the command line; an unknown ID is exit 1, like `status`'s. */
function isBadInput(err: unknown): boolean {
  if (err instanceof DeadLetterError) return err.type !== ErrorType.DlqEntryNotFound && err.type !== ErrorType.DlqBusy;
  return badInput.some((kind) => err instanceof kind);
}

function buildProgram(): Command {
  const program = new Command('jobctl')
    .description('Enqueue and inspect durable-jobs jobs. Connects to TEMPORAL_ADDRESS (default 127.0.0.1:7233).')
    .option('--catalog <module>', 'the module exporting your job types (defineCatalog); default DURABLE_JOBS_CATALOG, else package.json "durable-jobs".catalog. Only enqueue, schedule create, dlq redrive --patch and types need it')
    .showHelpAfterError()
    .exitOverride()
    .hook('preAction', (root) => setCatalogFlag(root.opts<{ catalog?: string }>().catalog));

  const enqueue = program
    .command('enqueue')
    .description('Validate a payload and enqueue a job; prints the job ID')
    .argument('<type>', 'job type (jobctl types lists them)')
    .argument('<payload-json>', 'the payload, as JSON; - reads it from standard input')
    .option('--id <id>', 'job ID; enqueueing an existing ID runs nothing new')
    .option('--delay <duration>', 'wait before the first attempt, e.g. 30s, 5m')
    .option('--priority <1-5>', 'start before jobs with a higher number when workers are busy: 1 highest, 5 lowest (default 3)')
    .option('--debounce-key <key>', 'collapse enqueues of this key that come within --debounce of each other into one job (needs --debounce)')
    .option('--debounce <duration>', 'with --debounce-key: start the job this long after the last enqueue, e.g. 30s')
    .option('--max-delay <duration>', 'with --debounce-key: start it at the latest this long after the first (default the larger of --debounce and 1h)')
    .option('--dedupe-key <key>', 'within --dedupe-ttl of the first enqueue of this key, return its job instead of running another (needs --dedupe-ttl)')
    .option('--dedupe-ttl <duration>', 'with --dedupe-key: how long the key returns its first job, e.g. 24h')
    .option('--json', 'print {"id","existed"} as JSON');
  addFairnessOptions(enqueue)
    .action(async (type: string, payloadJson: string, opts: EnqueueFlags & FairnessFlags) => {
      // Validate everything before connecting: bad input never reaches Temporal. The client then
      // starts the job with this payload as it is (validation is one step: the client's own).
      const catalog = projectCatalog('required', 'enqueue')!;
      const payload = parseJson(await readJsonArg(payloadJson, 'payload-json'), 'payload-json');
      const job = prepareJob(catalog, type, payload, { id: opts.id, delay: opts.delay, priority: parsePriority(opts.priority), ...parseFairnessFlags(opts), ...windowFlags(opts) });
      const result = await withClient((client) => client.start(job), 'required', 'enqueue');
      if (opts.json) console.log(JSON.stringify({ id: result.id, existed: result.existed }));
      else {
        console.log(result.id);
        if (result.existed) console.error(`job ${result.id} already existed; nothing new was enqueued`);
      }
    });

  program
    .command('status')
    .description('Print a job record, read from Temporal')
    .argument('<id>', 'job ID')
    .option('--json', 'print the record as JSON')
    .action(async (id: string, opts: { json?: boolean }) => {
      // The catalog, when the project names one, gives the attempts limit of jobs from before a job reported it itself.
      const record = await withClient((client) => client.get(id), 'optional');
      console.log(opts.json ? JSON.stringify(record, null, 2) : formatJobRecord(record));
    });

  program
    .command('result')
    .description("Wait for a job to finish and print its result as JSON; exits 1 if the job failed")
    .argument('<id>', 'job ID')
    .option('--timeout <duration>', 'give up waiting after this long (e.g. 30s, 5m), exit 1; the job goes on')
    .action(async (id: string, opts: { timeout?: string }) => {
      const timeoutMs = opts.timeout === undefined ? undefined : parseDuration(opts.timeout, '--timeout');
      const result = await withClient(async (client) => {
        try {
          const waiting = client.result(id);
          if (timeoutMs === undefined) return await waiting;
          let timer: NodeJS.Timeout | undefined;
          const timedOut = new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new JobFailedError(`job ${id} did not finish within ${opts.timeout}; it goes on (jobctl status ${id})`)), timeoutMs);
          });
          return await Promise.race([waiting, timedOut]).finally(() => clearTimeout(timer));
        } catch (err) {
          if (!(err instanceof WorkflowFailedError)) throw err;
          const record = await client.get(id);
          const why = record.error ? formatJobError(record.error) : describe(err);
          throw new JobFailedError(`job ${id} ${record.status} after ${record.attempts}/${record.maxAttempts} attempts: ${why}`);
        }
      }, 'optional');
      console.log(JSON.stringify(result, null, 2));
    });

  program
    .command('cancel')
    .description('Cancel a job: its attempt is cancelled, completed steps are compensated, and it ends as cancelled')
    .argument('<id>', 'job ID')
    .action(async (id: string) => {
      await withClient((client) => client.cancel(id));
      console.log(`cancellation requested for ${id}`);
    });

  program
    .command('list')
    .description('List jobs from Temporal visibility, newest first (dead-lettered: from the dead-letter queues, oldest failure first)')
    .option('--type <type>', 'only this job type')
    .addOption(new Option('--status <status>', 'only jobs in this state').choices([...listableStatuses, 'dead-lettered']))
    .option('--limit <n>', 'at most this many', '50')
    .option('--json', 'print as JSON')
    .action(async (opts: { type?: string; status?: ListableStatus | 'dead-lettered'; limit: string; json?: boolean }) => {
      const limit = parseLimit(opts.limit);
      const rows = await withClient(async (client) => {
        if (opts.status !== 'dead-lettered') return client.list({ type: opts.type, status: opts.status, limit });
        const { entries } = await client.deadLetters.page({ type: opts.type, limit: Math.min(limit, 1000) });
        // Entries handed off before 0.3 do not carry createdAt: read it from the job's first run.
        const createdAt = (e: (typeof entries)[number]) => e.createdAt ?? readCreatedAt(client.temporal, e.id).then((d) => d.toISOString(), () => undefined);
        return Promise.all(entries.map(async (e) => ({ id: e.id, type: e.type, status: 'dead-lettered', createdAt: await createdAt(e), closedAt: e.lastFailedAt })));
      });
      console.log(opts.json ? JSON.stringify(rows, null, 2) : formatTable(rows as { id: string; type: string; status: string; createdAt?: string; closedAt?: string }[], ['id', 'type', 'status', 'createdAt', 'closedAt']));
    });

  addDeadLetterCommands(program);
  addStatsCommand(program);
  addPauseCommands(program);
  addCodecCommands(program);
  addConsoleCommand(program);
  addScheduleCommands(program);
  addDoctorCommand(program);

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

  return program;
}

/** Runs jobctl with `argv` (as in process.argv) and resolves to its exit code. */
export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    // jobctl's own usage and job-failed messages were always printed bare; every other error names its type.
    const message = err instanceof UsageError || err instanceof JobFailedError ? err.detail : err instanceof JobsError ? err.message : `jobctl: ${describe(err)}`;
    console.error(sanitizeForTerminal(redact(message, secretsFromEnv())));
    return isBadInput(err) ? 2 : 1;
  }
}
