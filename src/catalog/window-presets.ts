import type { ActivityPreset } from './define-job';
import { exponentialRetry } from '../shared/retry';

/**
 * The activity preset of the debounce and dedupe windows (not job types: one workflow per key,
 * started by the client). Starting a window's job must not give up on a passing fault: a window
 * whose job never starts would lose the enqueues it collected.
 */
export const windowPresets = {
  start: { retry: exponentialRetry({ initialInterval: '1s', maximumInterval: '1m', maximumAttempts: 0 }), timeouts: { startToClose: '30s' } },
} satisfies Record<string, ActivityPreset>;

/** Memo key of a dedupe window's job ID, which a later enqueue of the key reads with `describe`. A stored contract. */
export const dedupeJobIdMemoKey = 'dedupeJobId';
