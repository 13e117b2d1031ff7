// `jobctl enqueue <type> <payload-json>`, and `--file jobs.jsonl` for many jobs at once.
// One enqueue starts over Temporal's HTTP API when it answers (http/http-enqueue.ts), so it loads
// neither the SDK's gRPC client nor, until --file asks for them, the bulk path's modules.
import type { Command } from 'commander';
import { prepareJob } from '../catalog/prepare-job';
import { projectCatalog } from './cli-catalog';
import type { FileFlags } from './cli-enqueue-file';
import { addFairnessOptions, parseFairnessFlags, type FairnessFlags } from './cli-fairness';
import { UsageError, parseJson, parsePriority, readJsonArg, withClient } from './cli-support';
import { windowFlags, type EnqueueFlags } from './cli-windows';
import { enqueueOverHttp } from './http/http-enqueue';

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
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    if (opts.file !== undefined) return (require('./cli-enqueue-file') as typeof import('./cli-enqueue-file')).enqueueFile(type, payloadJson, opts);
    if (payloadJson === undefined) throw new UsageError('enqueue: give <payload-json>, or --file <path>');
    if (opts.skipInvalid) throw new UsageError('--skip-invalid: only with --file');
    // Validate everything before connecting: bad input never reaches Temporal. The client then
    // starts the job with this payload as it is (validation is one step: the client's own).
    const catalog = projectCatalog('required', 'enqueue')!;
    const payload = parseJson(await readJsonArg(payloadJson, 'payload-json'), 'payload-json');
    const job = prepareJob(catalog, type, payload, { id: opts.id, delay: opts.delay, priority: parsePriority(opts.priority), ...parseFairnessFlags(opts), ...windowFlags(opts) });
    const result = (await enqueueOverHttp(job, catalog)) ?? (await withClient((client) => client.start(job), 'required', 'enqueue'));
    if (opts.json) console.log(JSON.stringify({ id: result.id, existed: result.existed }));
    else {
      console.log(result.id);
      if (result.existed) console.error(`job ${result.id} already existed; nothing new was enqueued`);
    }
  });
}
