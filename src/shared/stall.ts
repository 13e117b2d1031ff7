import type { StallReason } from './job-metrics';

/** The parts of a failure (a proto `Failure`, decoded or not) that tell how an attempt ended. */
export interface FailureLike {
  message?: string | null;
  cause?: FailureLike | null;
  timeoutFailureInfo?: { timeoutType?: number | string | null } | null;
  applicationFailureInfo?: { type?: string | null } | null;
  canceledFailureInfo?: object | null;
}

// temporal.api.enums.v1.TimeoutType
const START_TO_CLOSE = 1;
const HEARTBEAT = 4;

/**
 * Whether an attempt's failure means its worker stopped answering, and how: a heartbeat timeout
 * (the worker died or hung mid-attempt), a start-to-close timeout (it never reported back), or
 * the worker shutting down (its grace time ran out, so the attempt was cancelled and handed back).
 * `undefined` for any other failure: the attempt itself threw.
 */
export function stallReason(failure: FailureLike | null | undefined): StallReason | undefined {
  for (let f = failure; f; f = f.cause) {
    const timeout = f.timeoutFailureInfo;
    if (timeout) {
      const t = timeout.timeoutType;
      if (t === HEARTBEAT || t === 'TIMEOUT_TYPE_HEARTBEAT' || t === 'HEARTBEAT') return 'heartbeat-timeout';
      if (t === START_TO_CLOSE || t === 'TIMEOUT_TYPE_START_TO_CLOSE' || t === 'START_TO_CLOSE') return 'start-to-close-timeout';
      return undefined;
    }
    if (isShutdown(f)) return 'worker-shutdown';
  }
  return undefined;
}

/** The SDK cancels running attempts with `WORKER_SHUTDOWN` when a stopping worker's grace time ends. */
function isShutdown(f: FailureLike): boolean {
  if (/WORKER_SHUTDOWN|worker shut ?down/i.test(f.message ?? '')) return true;
  return /worker-?shutdown/i.test(f.applicationFailureInfo?.type ?? '');
}
