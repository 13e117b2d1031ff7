// `jobctl enqueue <type> --file jobs.jsonl`: every line validated first, then started with bounded
// concurrency over the SDK client, with progress. Loaded only when --file is given.
import { readFile } from 'node:fs/promises';
import { describeError } from '../shared/errors';
import { projectCatalog } from './cli-catalog';
import { parseFairnessFlags, type FairnessFlags } from './cli-fairness';
import { JobFailedError, UsageError, parsePriority, withClient } from './cli-support';
import type { EnqueueFlags } from './cli-windows';
import { InvalidItemsError, prepareMany, startMany } from '../client/enqueue-many';
import { parseJobsFile } from './jobs-file';
import { startProgress } from './progress';

/** The flags only `enqueue --file` takes. */
export interface FileFlags {
  file?: string;
  skipInvalid?: boolean;
  concurrency: string;
}

/** Enqueues every line of `opts.file`; nothing starts if a line is invalid, unless --skip-invalid. */
export async function enqueueFile(type: string, payloadJson: string | undefined, opts: EnqueueFlags & FairnessFlags & FileFlags): Promise<void> {
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
    throw new UsageError(`--file: cannot read ${path} (${describeError(err)})`);
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
  // In line order: invalid lines are reported before the others start.
  const byLine = result.outcomes.map((o) => ({ line: Number(o.label.slice(5)), id: o.id, outcome: o.outcome, error: o.error })).sort((a, b) => a.line - b.line);
  if (opts.json) console.log(JSON.stringify(byLine, null, 2));
  else for (const o of result.outcomes) if (o.outcome === 'invalid') console.log(`${o.label}: invalid (${o.error})`);
  const { started, existed, conflict, invalid, failed } = result.counts;
  console.error(`jobctl: ${started} started, ${existed} existed, ${conflict} conflict, ${invalid} invalid, ${failed} failed`);
  if (failed + conflict > 0) throw new JobFailedError(`${failed + conflict} of ${result.outcomes.length} line(s) not enqueued (conflict or failed); run again to retry the failed ones`);
}
