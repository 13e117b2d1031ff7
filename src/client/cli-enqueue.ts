// `jobctl enqueue <type> <payload-json>`, and `--file jobs.jsonl` for many jobs at once.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { prepareJob } from '../catalog/prepare-job';
import { describe } from '../shared/errors';
import { projectCatalog } from './cli-catalog';
import { addFairnessOptions, parseFairnessFlags, type FairnessFlags } from './cli-fairness';
import { JobFailedError, UsageError, parseJson, parsePriority, readJsonArg, withClient } from './cli-support';
import { windowFlags, type EnqueueFlags } from './cli-windows';
import { InvalidItemsError, prepareMany, startMany } from './enqueue-many';
import { parseJobsFile } from './jobs-file';
import { startProgress } from './progress';

interface FileFlags {
  file?: string;
  skipInvalid?: boolean;
  concurrency: string;
}

/** Adds `enqueue`. */
export function addEnqueueCommand(program: Command): void {
  const enqueue = program
    .command('enqueue')
    .description('Validate a payload and enqueue a job; prints the job ID. With --file, enqueue one job per line of a file')
    .argument('<type>', 'job type (jobctl types lists them)')
    .argument('[payload-json]', 'the payload, as JSON; - reads it from standard input')
    .option('--id <id>', 'job ID; enqueueing an existing ID runs nothing new')
    .option('--file <path>', 'enqueue every line of this file, {"payload": {...}, "id": "..."} (id optional), instead of <payload-json>; every line is validated first')
    .option('--skip-invalid', 'with --file: enqueue the valid lines and report the invalid ones, instead of enqueueing nothing')
    .option('--concurrency <n>', 'with --file: at most this many starts in flight at once (1 to 256)', '32')
    .option('--delay <duration>', 'wait before the first attempt, e.g. 30s, 5m')
    .option('--priority <1-5>', 'start before jobs with a higher number when workers are busy: 1 highest, 5 lowest (default 3)')
    .option('--debounce-key <key>', 'collapse enqueues of this key that come within --debounce of each other into one job (needs --debounce)')
    .option('--debounce <duration>', 'with --debounce-key: start the job this long after the last enqueue, e.g. 30s')
    .option('--max-delay <duration>', 'with --debounce-key: start it at the latest this long after the first (default the larger of --debounce and 1h)')
    .option('--dedupe-key <key>', 'within --dedupe-ttl of the first enqueue of this key, return its job instead of running another (needs --dedupe-ttl)')
    .option('--dedupe-ttl <duration>', 'with --dedupe-key: how long the key returns its first job, e.g. 24h')
    .option('--json', 'print {"id","existed"} as JSON (with --file: one {"line","id","outcome"} per line)');
  addFairnessOptions(enqueue).action(async (type: string, payloadJson: string | undefined, opts: EnqueueFlags & FairnessFlags & FileFlags) => {
    if (opts.file !== undefined) return enqueueFile(type, payloadJson, opts);
    if (payloadJson === undefined) throw new UsageError('enqueue: give <payload-json>, or --file <path>');
    if (opts.skipInvalid) throw new UsageError('--skip-invalid: only with --file');
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
}

async function enqueueFile(type: string, payloadJson: string | undefined, opts: EnqueueFlags & FairnessFlags & FileFlags): Promise<void> {
  const path = opts.file!;
  if (payloadJson !== undefined) throw new UsageError('--file: give either <payload-json> or --file, not both');
  if (opts.id !== undefined) throw new UsageError('--id: not with --file; give each line its "id"');
  if (opts.debounceKey !== undefined || opts.dedupeKey !== undefined) throw new UsageError('--file: not with --debounce-key or --dedupe-key');
  const concurrency = Number(opts.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) throw new UsageError(`--concurrency: must be a whole number from 1 to 256, got ${JSON.stringify(opts.concurrency)}`);
  const catalog = projectCatalog('required', 'enqueue')!;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(`--file: cannot read ${path} (${describe(err)})`);
  }
  // A type with an idempotency key derives its IDs from the payload; any other gets one per line.
  const definition = catalog.definition(type);
  const file = parseJobsFile(text, type, definition !== undefined && !definition.idempotencyKey);
  const options = { delay: opts.delay, priority: parsePriority(opts.priority), ...parseFairnessFlags(opts), concurrency, skipInvalid: opts.skipInvalid };
  // Every line is checked before connecting: all bad lines are named at once, and nothing starts.
  const prepared = prepareMany(catalog, type, file.items, options);
  prepared.invalid.push(...file.malformed.map((m) => ({ index: -m.line, label: m.label, issues: m.issues })));
  prepared.invalid.sort((a, b) => Number(a.label.slice(5)) - Number(b.label.slice(5)));
  if (prepared.invalid.length > 0 && !opts.skipInvalid) throw new InvalidItemsError(type, prepared.invalid);
  if (prepared.jobs.length === 0 && prepared.invalid.length === 0) throw new UsageError(`--file: ${path} holds no jobs`);
  const progress = startProgress({ label: `enqueue ${type}`, total: prepared.jobs.length });
  const result = await withClient(
    (client) =>
      startMany((job) => client.start(job), type, prepared, {
        ...options,
        onOutcome: (o) => {
          progress.tick(o.outcome === 'failed' || o.outcome === 'conflict');
          // Text names the lines that need a look; --json gives every line's outcome.
          if (!opts.json && (o.outcome === 'conflict' || o.outcome === 'failed')) progress.print(`${o.label}: ${o.id}: ${o.outcome}${o.error ? ` (${o.error})` : ''}`);
        },
      }),
    'required',
    'enqueue',
  ).finally(() => progress.stop());
  if (opts.json) console.log(JSON.stringify(result.outcomes.map((o) => ({ line: Number(o.label.slice(5)), id: o.id, outcome: o.outcome, error: o.error })), null, 2));
  else for (const o of result.outcomes) if (o.outcome === 'invalid') console.log(`${o.label}: invalid (${o.error})`);
  const { started, existed, conflict, invalid, failed } = result.counts;
  console.error(`jobctl: ${started} started, ${existed} existed, ${conflict} conflict, ${invalid} invalid, ${failed} failed`);
  if (failed + conflict > 0) throw new JobFailedError(`${failed + conflict} of ${result.outcomes.length} line(s) not enqueued (conflict or failed); run again to retry the failed ones`);
}
