// An attempt's wait for its turn at its dependency's breaker (src/activity-kit/breakers.ts), within
// what its own timeout allows, heartbeating meanwhile: under a heartbeat timeout (send-email's
// 10 s) a silent wait would end the attempt, and a cancellation reaches it only in a heartbeat's
// answer.
import type { Context } from '@temporalio/activity';
import type { BreakerTurn, DependencyBreakers } from './breakers';

/** What an attempt keeps of its start-to-close timeout for the call itself, once its turn comes, and for the answer to reach it (ms). */
const keptForTheCallMs = 6_000;
/** How often a waiting attempt heartbeats (ms); the worker sends them at most every 2 s. */
const waitBeatMs = 1_000;

export async function takeTurn(ctx: Context, breakers: DependencyBreakers, dependency: string, jobId: string): Promise<BreakerTurn> {
  const timeoutMs = ctx.info.startToCloseTimeoutMs;
  const limits = { waitMs: Math.max(0, timeoutMs - keptForTheCallMs), leaseMs: timeoutMs };
  // The details are the attempt's checkpoint: repeated as they are, never replaced.
  const beat = setInterval(() => ctx.heartbeat(ctx.info.heartbeatDetails), waitBeatMs);
  try {
    return await breakers.begin(dependency, jobId, limits, ctx.cancelled);
  } finally {
    clearInterval(beat);
  }
}
