import { Context } from '@temporalio/activity';

/**
 * How often {@link whileHeartbeating} heartbeats, in ms. The SDK coalesces heartbeats to at most
 * one per 80% of the heartbeat timeout, so this only bounds how stale the last one can be.
 */
export const heartbeatEveryMs = 1000;

/**
 * Runs `work` with the attempt's cancellation signal while heartbeating on a timer.
 *
 * Temporal tells a running attempt that it was cancelled (the job was cancelled, the server timed
 * the attempt out) only in the answer to a heartbeat, so an activity that waits on the outside
 * world (SMTP, HTTP, a database lock) heartbeats in order to hear of it; worker shutdown aborts the
 * signal locally. `work` must stop when the signal aborts: close the connection, abort the
 * request, roll back. Whatever it throws then is replaced by the cancellation itself, so the
 * attempt reports "cancelled" (not a retryable error that would hide why it stopped).
 */
export async function whileHeartbeating<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ctx = Context.current();
  const signal = ctx.cancellationSignal;
  signal.throwIfAborted();
  ctx.heartbeat();
  const timer = setInterval(() => ctx.heartbeat(), heartbeatEveryMs);
  try {
    return await work(signal);
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    throw err;
  } finally {
    clearInterval(timer);
  }
}
