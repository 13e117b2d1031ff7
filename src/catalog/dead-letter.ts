import type { ActivityPreset } from './define-job';
import { exponentialRetry } from '../shared/retry';

/**
 * The dead-letter queue's own activity presets. Not a job type (it is not in the registry): the
 * DLQ is one long-running workflow per job type, fed by the jobs that fail for good.
 */
export const deadLetterPresets = {
  /** The hand-off must not give up: a failed job that never reaches the DLQ would be lost. */
  handOff: { retry: exponentialRetry({ initialInterval: '1s', maximumInterval: '1m', maximumAttempts: 0 }), timeouts: { startToClose: '30s' } },
  /** A redrive start is retried briefly; a lasting failure is reported to the operator. */
  restart: { retry: exponentialRetry({ initialInterval: '1s', maximumInterval: '10s', maximumAttempts: 5 }), timeouts: { startToClose: '30s' } },
} satisfies Record<string, ActivityPreset>;

/**
 * The workflow task timeout a DLQ workflow is started with (Temporal's default is 10 s). A DLQ's
 * history can hold thousands of hand-off signals: a task that must replay it on a loaded machine
 * (after its worker lost the cached run) can take longer than 10 s, and a task that times out is
 * retried from the start, replaying more each time as signals keep arriving, and updates (redrive,
 * discard) meet "Workflow Task in failed state" meanwhile. Continue-as-new keeps it.
 */
export const deadLetterWorkflowTaskTimeout = '60s';

/**
 * The workflow ID of the DLQ of a job type on a task queue: each deployment (task queue) has its
 * own DLQs, run by its own workers. A stored contract: never change it in place.
 */
export function deadLetterWorkflowId(taskQueue: string, jobType: string): string {
  return `durable-jobs-dlq:${taskQueue}:${jobType}`;
}

/**
 * The message of a failure with what varies between occurrences of the same fault (numbers, IDs,
 * quoted values, quotes inside them included, addresses) replaced by placeholders, so that a thousand jobs failing for one
 * reason share one fingerprint.
 */
export function normaliseFailureMessage(message: string): string {
  return message
    .toLowerCase()
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
    .replace(/[\w.+-]+@[\w-]+(\.[\w-]+)+/g, '<email>')
    // A quoted value may hold quotes: escaped (`"say \"hi\""`, as JSON writes it), or, in single
    // quotes, an apostrophe inside a word (`'O'Brien'`).
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.|'(?=\w))*'/g, '<str>')
    .replace(/\b0x[0-9a-f]+\b|\b[0-9a-f]{16,}\b/g, '<hex>')
    .replace(/\d+(\.\d+)?/g, '<n>')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);
}
