// The workflow IDs of debounce windows and dedupe windows, and the job IDs they give their jobs:
// computed here once, by the client (which returns them) and by the workflows (which start the
// jobs). Plain strings, so workflow code may import it. Stored contracts: never change in place.

/** Workflow type of the debouncer of one job type and key (`debounceJobWorkflow`). A stored contract. */
export const debounceWorkflowType = 'debounceJobWorkflow';
/** Workflow type of the dedupe window of one job type and key (`dedupeJobWorkflow`). A stored contract. */
export const dedupeWorkflowType = 'dedupeJobWorkflow';
/** Signal that adds one enqueue to a debounce window. A stored contract. */
export const debounceEnqueueSignalName = 'debounceEnqueue';

/** Characters a run ID has: a UUID. */
const runIdLength = 36;

/**
 * The workflow ID of the debouncer of a job type and key: one workflow per key, whose runs are the
 * key's windows, one after the other.
 */
export function debounceWorkflowId(type: string, key: string): string {
  return `durable-jobs-debounce:${type}:${key}`;
}

/**
 * The job ID of the window that the debouncer run `runId` collects: `<type>:debounce:<key>:<run ID>`.
 * The client knows it from signal-with-start (the run its signal reached), the run from its own info.
 */
export function debouncedJobId(type: string, key: string, runId: string): string {
  return `${debouncedJobIdPrefix(type, key)}:${runId}`;
}

/** What a debounced job ID ({@link debouncedJobId}) names: its type, key and the debouncer run of its window. */
export function parseDebouncedJobId(id: string): { type: string; key: string; runId: string } | undefined {
  const match = /^([a-z][a-z0-9-]*):debounce:(.+):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/.exec(id);
  return match ? { type: match[1]!, key: match[2]!, runId: match[3]! } : undefined;
}

/** What every job ID of a debounce key starts with: `<type>:debounce:<key>`. */
export function debouncedJobIdPrefix(type: string, key: string): string {
  return `${type}:debounce:${key}`;
}

/** The workflow ID of the dedupe window of a job type and key: open, and so taken, for the window's TTL. */
export function dedupeWorkflowId(type: string, key: string): string {
  return `durable-jobs-dedupe:${type}:${key}`;
}

/** The job ID of one dedupe window: `<type>:dedupe:<key>:<random UUID>`, chosen by the enqueue that opens it. */
export function dedupedJobId(type: string, key: string, uuid: string): string {
  return `${type}:dedupe:${key}:${uuid}`;
}

/**
 * The longest debounce or dedupe key a job type allows, so that its job IDs stay within
 * `maxJobIdLength` (the workflow IDs of the windows are shorter than Temporal's 255 then too).
 */
export function maxWindowKeyLength(kind: 'debounce' | 'dedupe', type: string, maxJobIdLength: number): number {
  return maxJobIdLength - `${type}:${kind}::`.length - runIdLength;
}
