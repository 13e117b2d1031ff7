// The stored contracts between limited jobs and their limiter (concurrency-limiter.ts): the
// signals, the query, the memo and the limiter's input. Never renamed in place.
import { defineQuery, defineSignal } from '@temporalio/workflow';

/** A job asking for a slot (sent by the job's `requestConcurrencySlot` activity, with the limiter's start). */
export interface SlotRequest {
  jobId: string;
  /** The job's priority key, 1 (first) to 5; 3 when unset. */
  priority: number;
  /** The limit the job's definition declares; the newest request's wins (a deploy may change it). */
  limit: number;
}

/** A job holding a slot, or waiting for one. */
export interface SlotHolder {
  jobId: string;
  priority: number;
  /** When it asked (ISO 8601). */
  since: string;
}

/** What the limiter starts or continues with. */
export interface ConcurrencyLimiterInput {
  jobType: string;
  key: string;
  limit: number;
  holders?: SlotHolder[];
  waiting?: SlotHolder[];
}

/** What the limiter reports, in its memo (`jobctl stats`, metrics) and to {@link limiterStateQuery}. */
export interface LimiterState {
  jobType: string;
  key: string;
  limit: number;
  running: number;
  waiting: number;
  /** When the longest-waiting job asked (ISO 8601). */
  oldestWaitingSince?: string;
}

/** Memo key of the limiter's {@link LimiterState}. A stored contract. */
export const limiterMemoKey = 'limiter';

export const slotRequestedSignal = defineSignal<[SlotRequest]>('concurrencySlotRequested');
export const slotReleasedSignal = defineSignal<[{ jobId: string }]>('concurrencySlotReleased');
/** Sent to a job when its slot is its own. A stored contract of every limited job. */
export const slotGrantedSignal = defineSignal('concurrencySlotGranted');
export const limiterStateQuery = defineQuery<LimiterState & { holders: SlotHolder[]; queue: SlotHolder[] }>('limiterState');
