// The limiter of one job type and concurrency key: a long-lived workflow that hands out the key's
// slots to the jobs that ask, in priority then arrival order, and takes them back when the jobs
// close (docs/guarantees.md, "Concurrency per key"). Its state lives in its own history, so a
// worker or server restart loses nothing; it continues as new before its history grows large
// and closes once no job has held or wanted a slot for a while.
import {
  allHandlersFinished,
  condition,
  setHandler,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import type { ConcurrencyLimitActivities } from '../activity-kit/concurrency-limit';
import {
  limiterMemoKey,
  limiterStateQuery,
  slotReleasedSignal,
  slotRequestedSignal,
  type ConcurrencyLimiterInput,
  type LimiterState,
  type SlotHolder,
} from '../catalog/concurrency-signals';
import { continueAsNewUnderCurrentProtocol, libraryActivities } from './library-activity-calls';

/** How often the limiter checks that its holders are still running: the bound on a slot leaked by a job that closed without releasing it (terminated). */
export const holderCheckIntervalMs = 30_000;
/** How long a limiter with nothing to do stays open before it closes. */
const idleCloseMs = 60_000;
/** History length at which the limiter continues as new (Temporal warns at 10,240 events). */
const continueAfterEvents = 2_000;

const { runningJobs, tellSlotGranted } = libraryActivities<ConcurrencyLimitActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', maximumInterval: '30s' },
});

export async function concurrencyLimiterWorkflow(input: ConcurrencyLimiterInput): Promise<void> {
  let limit = input.limit;
  const holders = new Map((input.holders ?? []).map((h) => [h.jobId, h]));
  const waiting = [...(input.waiting ?? [])];
  /** Holders to tell (again) that the slot is theirs: a job that continued as new asks again. */
  const regrant = new Set<string>();
  let changed = true;

  setHandler(slotRequestedSignal, (request) => {
    limit = request.limit;
    changed = true;
    if (holders.has(request.jobId)) regrant.add(request.jobId);
    else if (!waiting.some((w) => w.jobId === request.jobId)) waiting.push({ jobId: request.jobId, priority: request.priority, since: new Date().toISOString() });
  });
  setHandler(slotReleasedSignal, ({ jobId }) => {
    changed = true;
    holders.delete(jobId);
    regrant.delete(jobId);
    const at = waiting.findIndex((w) => w.jobId === jobId);
    if (at >= 0) waiting.splice(at, 1);
  });
  const state = (): LimiterState => ({
    jobType: input.jobType,
    key: input.key,
    limit,
    running: holders.size,
    waiting: waiting.length,
    ...(waiting.length > 0 ? { oldestWaitingSince: waiting.reduce((a, w) => (w.since < a ? w.since : a), waiting[0]!.since) } : {}),
  });
  setHandler(limiterStateQuery, () => ({ ...state(), holders: [...holders.values()], queue: [...waiting] }));

  let lastMemo = '';
  for (;;) {
    // Cleared before the grants' activity, not after: a request or release that comes in while
    // the grants are being told must wake the wait below, not sit until the holder check.
    changed = false;
    const grants = [...regrant];
    regrant.clear();
    while (holders.size < limit && waiting.length > 0) {
      const next = takeFirst(waiting);
      holders.set(next.jobId, next);
      grants.push(next.jobId);
    }
    // A job that closed while it waited (cancelled, terminated) cannot be told: its slot goes to the next.
    const unreachable = grants.length > 0 ? await tellSlotGranted(grants) : [];
    for (const jobId of unreachable) holders.delete(jobId);
    if (unreachable.length > 0) continue;
    const memo = JSON.stringify(state());
    if (memo !== lastMemo) {
      upsertMemo({ [limiterMemoKey]: state() });
      lastMemo = memo;
    }

    if (holders.size === 0 && waiting.length === 0) {
      if (!(await condition(() => changed, idleCloseMs)) && allHandlersFinished()) return;
      continue;
    }
    if (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= continueAfterEvents) {
      await condition(allHandlersFinished);
      await continueAsNewUnderCurrentProtocol<typeof concurrencyLimiterWorkflow>({ jobType: input.jobType, key: input.key, limit, holders: [...holders.values()], waiting });
    }
    if (!(await condition(() => changed, holderCheckIntervalMs)) && holders.size > 0) {
      const ids = [...holders.keys()];
      const running = new Set(await runningJobs(ids));
      for (const id of ids) if (!running.has(id)) holders.delete(id);
    }
  }
}

/** Removes and returns the waiter that goes first: the lowest priority key, then the earliest. */
function takeFirst(waiting: SlotHolder[]): SlotHolder {
  let best = 0;
  for (let i = 1; i < waiting.length; i++) if (waiting[i]!.priority < waiting[best]!.priority) best = i;
  return waiting.splice(best, 1)[0]!;
}
