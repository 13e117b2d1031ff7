import { Context } from '@temporalio/activity';

/**
 * Records how far a long attempt has got, as its heartbeat's details: Temporal keeps the last one
 * and hands it to the next attempt ({@link lastCheckpoint}), so a retry after a crash, a timeout or
 * a worker shutdown resumes instead of starting over. Also a heartbeat (cancellation reaches the
 * attempt in its answer). Checkpoint only what is committed (e.g. rows written in the same
 * transaction as the cursor, or a file already flushed).
 */
export function checkpoint<T>(details: T): void {
  Context.current().heartbeat(details);
}

/**
 * The checkpoint the previous attempt of this activity left, if it left one that `isValid`
 * accepts (heartbeat details cross a process boundary: check their shape), else `undefined`.
 */
export function lastCheckpoint<T>(isValid: (details: unknown) => details is T): T | undefined {
  const details: unknown = Context.current().info.heartbeatDetails;
  return details !== undefined && isValid(details) ? details : undefined;
}
