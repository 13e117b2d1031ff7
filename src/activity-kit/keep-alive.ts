// Heartbeats on behalf of an attempt that does not: Temporal tells a running attempt of a
// cancellation only in the answer to a heartbeat, so a step written without heartbeats (most are)
// would never hear of `jobctl cancel` and run to its end, and the job with it.
import type { Context } from '@temporalio/activity';

/** An attempt heartbeats itself for its first second; after that the library does, this often (ms). */
export const keepAliveEveryMs = 1000;

/**
 * How often, at most, the worker sends an attempt's heartbeats to the server: every 2 s. The SDK's
 * defaults are 30 s for a step without a heartbeat timeout and 80% of the timeout for one with
 * (8 s for send-email's and sync-data's 10 s), which held a cancellation back that long: the
 * server tells an attempt of one only in the answer to a heartbeat. An attempt that ends within
 * its first second sends none, so short steps cost nothing more.
 */
export const heartbeatThrottleOption: { defaultHeartbeatThrottleInterval: string; maxHeartbeatThrottleInterval: string } = {
  defaultHeartbeatThrottleInterval: '2s',
  maxHeartbeatThrottleInterval: '2s',
};

/**
 * Starts heartbeating for the attempt of `ctx` once it has run {@link keepAliveEveryMs}, unless it
 * heartbeats itself: a heartbeat of its own resets the timer, and the library's repeat the details
 * it last gave (a checkpoint is never overwritten). Returns the stop. Left alone: a step that
 * declares a heartbeat timeout (it must heartbeat itself, and the timeout is how a hung one is
 * found: heartbeats on its behalf would hide that), and local activities (they hear of a
 * cancellation without heartbeats).
 */
export function keepAlive(ctx: Context): () => void {
  if (ctx.info.isLocal || ctx.info.heartbeatTimeoutMs) return () => undefined;
  const own = ctx.heartbeat;
  let details: unknown = undefined;
  let lastAt = Date.now();
  // `heartbeat` is a plain property of the context (readonly in its type only): wrapped, so that
  // the step's own heartbeats are seen and their details kept.
  (ctx as { heartbeat: (details?: unknown) => void }).heartbeat = (d?: unknown) => {
    details = d;
    lastAt = Date.now();
    own(d);
  };
  const timer = setInterval(() => {
    if (ctx.cancellationSignal.aborted || Date.now() - lastAt < keepAliveEveryMs) return;
    lastAt = Date.now();
    own(details);
  }, keepAliveEveryMs);
  return () => clearInterval(timer);
}
