// `jobctl status|result`: reading a job back. Both read over Temporal's HTTP API when it answers
// (http/http-reads.ts), and load the SDK's gRPC client only when it does not, or for what the HTTP
// reads leave to it (a debounced job that has not started, waiting for a result).
import type { Command } from 'commander';
import { parseDebouncedJobId } from '../catalog/window-ids';
import { describeError, JobNotFoundError } from '../shared/errors';
import { projectCatalog } from './cli-catalog';
import { JobFailedError, parseDuration, withClient } from './cli-support';
import { formatJobError, formatJobRecord } from '../client/format';
import type { JobRecord } from '../client/job-record';
import { readOverHttp } from './http/http-reads';
import type { HttpJobReader } from './http/http-job-reader';

/** Runs an HTTP read, leaving an unknown ID that may be a pending debounced job (its window still open) to the gRPC path. */
function httpRead<T>(id: string, read: (reader: HttpJobReader) => Promise<T>): Promise<T | undefined> {
  // The catalog, when the project names one, gives the attempts limit of jobs from before a job reported it itself.
  return readOverHttp(read, projectCatalog('lazy', 'status')).catch((err: unknown) => {
    if (err instanceof JobNotFoundError && parseDebouncedJobId(id)) return undefined;
    throw err;
  });
}

/** Adds `status`. */
export function addStatusCommand(program: Command): void {
  program
    .command('status')
    .description('Print a job record, read from Temporal')
    .argument('<id>', 'job ID')
    .option('--json', 'print the record as JSON')
    .action(async (id: string, opts: { json?: boolean }) => {
      const record = (await httpRead(id, (reader) => reader.record(id))) ?? (await withClient((client) => client.get(id), 'lazy'));
      console.log(opts.json ? JSON.stringify(record, null, 2) : formatJobRecord(record));
    });
}

/** What `result --timeout 0` says of a job still running. */
const notFinished = (id: string) => new JobFailedError(`job ${id} has not finished; it goes on (jobctl status ${id})`);

/** Why a job that did not complete has no result, as `result` says it. */
const notCompleted = (id: string, record: Pick<JobRecord, 'status' | 'attempts' | 'maxAttempts'>, why: string) =>
  new JobFailedError(`job ${id} ${record.status} after ${record.attempts}/${record.maxAttempts} attempts: ${why}`);

/**
 * `result --timeout 0` over HTTP: a running job has not finished, a completed one has its result;
 * a job that failed has its record's error. Undefined where only the SDK path can say (no HTTP,
 * or a closed job without an error of its own).
 */
async function resultNow(id: string): Promise<{ value: unknown } | undefined> {
  return httpRead(id, async (reader) => {
    const description = await reader.describe(id);
    if (description.status.name === 'RUNNING') throw notFinished(id);
    if (description.status.name === 'COMPLETED') return { value: await reader.result(id, description) };
    const record = await reader.record(id, description);
    return record.error ? Promise.reject(notCompleted(id, record, formatJobError(record.error))) : undefined;
  });
}

/** Adds `result`. */
export function addResultCommand(program: Command): void {
  program
    .command('result')
    .description("Wait for a job to finish and print its result as JSON; exits 1 if the job failed")
    .argument('<id>', 'job ID')
    .option('--timeout <duration>', 'give up waiting after this long (e.g. 30s, 5m), exit 1; the job goes on; 0: do not wait, exit 1 at once if it has not finished')
    .action(async (id: string, opts: { timeout?: string }) => {
      const timeoutMs = opts.timeout === undefined ? undefined : opts.timeout === '0' ? 0 : parseDuration(opts.timeout, '--timeout');
      const now = timeoutMs === 0 ? await resultNow(id) : undefined;
      const result = now ? now.value : await withClient(async (client) => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { WorkflowFailedError } = require('@temporalio/client') as typeof import('@temporalio/client');
        try {
          if (timeoutMs === 0 && (await client.isRunning(id))) throw notFinished(id);
          const waiting = client.result(id);
          if (timeoutMs === 0) return await waiting;
          if (timeoutMs === undefined) return await waiting;
          let timer: NodeJS.Timeout | undefined;
          const timedOut = new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new JobFailedError(`job ${id} did not finish within ${opts.timeout}; it goes on (jobctl status ${id})`)), timeoutMs);
          });
          return await Promise.race([waiting, timedOut]).finally(() => clearTimeout(timer));
        } catch (err) {
          if (!(err instanceof WorkflowFailedError)) throw err;
          const record = await client.get(id);
          throw notCompleted(id, record, record.error ? formatJobError(record.error) : describeError(err));
        }
      }, 'lazy');
      console.log(JSON.stringify(result, null, 2));
    });
}
