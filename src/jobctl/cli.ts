// jobctl: the command-line face of JobClient. Exit codes: 0 ok, 2 bad input, 1 operational error.
// Only the module of the command being run is loaded (the client, zod, the console, the DLQ code
// each cost tens of milliseconds to load): see docs/performance.md.
import { Command, CommanderError } from 'commander';
import { ConfigError, ErrorType, IdConflictError, InvalidOptionError, InvalidPayloadError, JobsError, ScheduleExistsError, UnknownJobTypeError, describeError } from '../shared/errors';
import { InterruptedError, JobFailedError, UsageError } from './cli-errors';
import { sanitizeForTerminal } from '../client/format';
import { redact, secretsFromEnv } from '../shared/redact';
import { missingNamespaceError, missingNamespaceOf } from '../shared/missing-namespace';
import { NoCatalogError } from '../catalog/catalog-error';
import { setCatalogFlag } from './cli-catalog';
import { addCommandSummaries } from './cli-command-summaries';
import { loadPart } from '../shared/optional-packages';
import { tracingConfigured } from '../shared/tracing-env';
import { traced } from '../shared/traced';

// No catalog is bad input too: --catalog (or DURABLE_JOBS_CATALOG, or package.json) fixes it.
const badInput = [UsageError, InvalidPayloadError, InvalidOptionError, UnknownJobTypeError, ConfigError, NoCatalogError, IdConflictError, ScheduleExistsError];

/** Exit 2 for what the user can fix on the command line; an unknown ID is exit 1, like `status`'s. */
function isBadInput(err: unknown): boolean {
  // By name: the DLQ's module is not loaded unless a dlq command ran.
  if (err instanceof JobsError && err.name === 'DeadLetterError') return err.type !== ErrorType.DlqEntryNotFound && err.type !== ErrorType.DlqBusy && err.type !== ErrorType.DlqNoWorker;
  return badInput.some((kind) => err instanceof kind);
}

type AddCommands = (program: Command) => void;

/**
 * Loads a command's module as it runs. `require`, not `import()`: the module then shares the one
 * module cache with the rest of jobctl (and its error classes), under tsx as under node.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const load = <M>(id: string): M => require(id) as M;

/** Each top-level command and the module that adds it, in the order help lists them. */
const commandTable: [names: string[], add: () => AddCommands][] = [
  [['enqueue'], () => load<typeof import('./cli-enqueue')>('./cli-enqueue').addEnqueueCommand],
  [['status'], () => load<typeof import('./cli-status')>('./cli-status').addStatusCommand],
  [['result'], () => load<typeof import('./cli-status')>('./cli-status').addResultCommand],
  [['cancel'], () => load<typeof import('./cli-jobs')>('./cli-jobs').addCancelCommand],
  [['list'], () => load<typeof import('./cli-jobs')>('./cli-jobs').addListCommand],
  [['dlq'], () => load<typeof import('./cli-dlq')>('./cli-dlq').addDeadLetterCommands],
  [['stats'], () => load<typeof import('./cli-stats')>('./cli-stats').addStatsCommand],
  [['pause', 'resume'], () => load<typeof import('./cli-pause')>('./cli-pause').addPauseCommands],
  [['breakers', 'breaker'], () => load<typeof import('./cli-breakers')>('./cli-breakers').addBreakerCommands],
  [['codec-server', 'keygen'], () => load<typeof import('./cli-codec')>('./cli-codec').addCodecCommands],
  [['console', 'hash-password'], () => load<typeof import('./cli-console')>('./cli-console').addConsoleCommand],
  [['schedule'], () => load<typeof import('./cli-schedule')>('./cli-schedule').addScheduleCommands],
  [['doctor'], () => load<typeof import('./cli-doctor')>('./cli-doctor').addDoctorCommand],
  [['types'], () => load<typeof import('./cli-jobs')>('./cli-jobs').addTypesCommand],
];

/** The words of `argv` that are not options (nor `--catalog`'s value): the command, its subcommand or arguments. */
function commandWords(argv: string[]): string[] {
  return argv.slice(2).filter((arg, i, all) => !arg.startsWith('-') && all[i - 1] !== '--catalog');
}

/** The command `argv` names: its first word that is not an option. */
function commandName(argv: string[]): string | undefined {
  return commandWords(argv)[0];
}

/**
 * jobctl with the command `argv` runs (or asks help for: `jobctl help enqueue`) loaded; with no
 * such command (`jobctl --help`, a name that is none), every command as its summary only.
 */
function buildProgram(argv: string[]): Command {
  const program = new Command('jobctl')
    .description('Enqueue and inspect durable-jobs jobs. Connects to TEMPORAL_ADDRESS (default 127.0.0.1:7233).')
    .option('--catalog <module>', 'the module exporting your job types (defineCatalog); default DURABLE_JOBS_CATALOG, else package.json "durable-jobs".catalog. Only enqueue, schedule create, dlq redrive --patch and types need it')
    .showHelpAfterError()
    .exitOverride()
    .hook('preAction', (root) => setCatalogFlag(root.opts<{ catalog?: string }>().catalog));
  const [first, second] = commandWords(argv);
  const name = first === 'help' ? second : first;
  const only = commandTable.find(([names]) => name !== undefined && names.includes(name));
  if (only) only[1]()(program);
  else addCommandSummaries(program);
  return program;
}

/** jobctl with every command loaded, as it was before summaries: for the test that keeps the summaries true. */
export function programWithEveryCommand(): Command {
  const program = new Command('jobctl');
  for (const [, add] of commandTable) add()(program);
  return program;
}

/** Command groups whose span names their subcommand too (`jobctl dlq redrive`); other commands' next word is an argument (an ID). */
const groups = new Set(['dlq', 'schedule']);

/** The span name of `argv`'s command: `jobctl enqueue`, `jobctl dlq redrive`; never its arguments. */
function spanName(argv: string[]): string {
  const words = commandWords(argv);
  return ['jobctl', ...words.slice(0, words[0] && groups.has(words[0]) ? 2 : 1)].join(' ');
}

/** Commands that serve until stopped: traced (their client calls are), but not under one span that never ends. */
const serving = new Set(['console', 'codec-server']);

/** Parses and runs `argv`; with tracing configured, under a `jobctl <command>` span. */
async function run(argv: string[]): Promise<void> {
  if (!tracingConfigured()) return void (await buildProgram(argv).parseAsync(argv));
  const tracing = loadPart('tracing', () => load<typeof import('./cli-tracing')>('./cli-tracing')).startCliTracing();
  const name = commandName(argv);
  try {
    if (name && serving.has(name)) await buildProgram(argv).parseAsync(argv);
    else await traced(spanName(argv), { 'jobctl.command': name ?? '' }, () => buildProgram(argv).parseAsync(argv));
  } finally {
    await tracing.shutdown();
  }
}

/** Runs jobctl with `argv` (as in process.argv) and resolves to its exit code. */
export async function main(argv: string[]): Promise<number> {
  try {
    await run(argv);
    return 0;
  } catch (thrown) {
    if (thrown instanceof CommanderError) return thrown.exitCode === 0 ? 0 : 2;
    // A namespace the server lacks is a bad TEMPORAL_NAMESPACE, said as the worker says it, whichever call met it.
    const namespace = missingNamespaceOf(thrown);
    const err = namespace === undefined ? thrown : missingNamespaceError(namespace, undefined, thrown);
    // jobctl's own usage and job-failed messages were always printed bare; every other error names its type.
    const message = err instanceof UsageError || err instanceof JobFailedError || err instanceof InterruptedError ? err.detail : err instanceof JobsError ? err.message : `jobctl: ${describeError(err)}`;
    console.error(sanitizeForTerminal(redact(message, secretsFromEnv())));
    if (err instanceof InterruptedError) return err.exitCode;
    return isBadInput(err) ? 2 : 1;
  }
}
