import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { jobPauseMemoKey, pauseRecordId, type JobPause } from './job-pause';

/**
 * A job type's pause, if it is paused: the memo of its open pause record, read with one describe
 * (strongly consistent; no worker needed). What every start of a job (enqueue, redrive) checks.
 */
export async function readJobPause(client: Client, taskQueue: string, type: string): Promise<JobPause | undefined> {
  try {
    const description = await client.workflow.getHandle(pauseRecordId(taskQueue, type)).describe();
    if (description.status.name !== 'RUNNING') return undefined;
    return description.memo?.[jobPauseMemoKey] as JobPause | undefined;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/** A cache of {@link readJobPause} answers, by deployment and type, for {@link readJobPauseCached}. */
export type JobPauseCache = Map<string, { at: number; pause: Promise<JobPause | undefined> }>;

/** The key of a type's entry in a {@link JobPauseCache}: delete it when the pause changes. */
export function jobPauseCacheKey(taskQueue: string, type: string): string {
  return `${taskQueue}\u0000${type}`;
}

/**
 * {@link readJobPause}, trusted for `ttlMs` per deployment and type: a burst of enqueues or of
 * failed attempts reads a type's pause once. A failed read is not kept.
 */
export function readJobPauseCached(cache: JobPauseCache, ttlMs: number, client: Client, taskQueue: string, type: string): Promise<JobPause | undefined> {
  const key = jobPauseCacheKey(taskQueue, type);
  const now = Date.now();
  const hit = cache.get(key);
  if (hit && now - hit.at < ttlMs) return hit.pause;
  const pause = readJobPause(client, taskQueue, type);
  cache.set(key, { at: now, pause });
  pause.catch(() => cache.delete(key));
  return pause;
}
