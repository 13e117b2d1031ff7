// The breaker of one dependency: a long-lived workflow on the shared queue that counts the failures
// workers report (an update, so the reporting worker learns the state at once), opens, probes and
// closes (src/catalog/breaker-state.ts), admits attempts one at a time while a failure is counted
// or a probe is due (src/catalog/breaker-admission.ts), and holds the dependency's task queue to its state on the
// Temporal server: while open the server hands out no attempt against it, to any worker, so none
// starts and none uses up a retry. Its view is its memo, which jobctl reads with no worker up.
import { allHandlersFinished, condition, defineQuery, defineUpdate, log, setHandler, upsertMemo, workflowInfo } from '@temporalio/workflow';
import type { BreakerActivities } from '../activity-kit/breaker-activities';
import { admission, admit, expireLease, leaseEndsAt, type BreakerAdmission, type BreakerAdmitRequest } from '../catalog/breaker-admission';
import { applyOrder, applyReport, newBreaker, probeDueAt, startProbe, wantedRate, type BreakerInput, type BreakerMachine, type BreakerOrder, type BreakerReport, type BreakerView } from '../catalog/breaker-state';
import { breakerMemoKey, breakerUpdateNames, breakerViewQueryName } from '../catalog/dependency';
import { continueAsNewUnderCurrentProtocol, libraryActivities } from './library-activity-calls';

export const breakerReportUpdate = defineUpdate<BreakerView, [BreakerReport]>(breakerUpdateNames.report);
export const breakerForceUpdate = defineUpdate<BreakerView, [BreakerOrder]>(breakerUpdateNames.force);
export const breakerAdmitUpdate = defineUpdate<BreakerAdmission, [BreakerAdmitRequest]>(breakerUpdateNames.admit);
export const breakerViewQuery = defineQuery<BreakerView>(breakerViewQueryName);

/** History length at which the breaker continues as new. */
const continueAfterEvents = 2_000;

const { setDependencyRate } = libraryActivities<BreakerActivities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '200ms', maximumInterval: '10s' },
});

export async function dependencyBreakerWorkflow(input: BreakerInput): Promise<void> {
  const m = input.machine ?? newBreaker(input.dependency, input.settings, Date.now());
  let applied: number | null | undefined = input.appliedRate;
  let changed = true;
  /** Attempts waiting for their admission. */
  let waiting = 0;
  const wanted = () => wantedRate(m, waiting) ?? null;
  // Each answers once the server holds the queue to the new state: a worker told `open`, or an
  // operator whose order returned, can count on no attempt starting.
  const enforced = () => condition(() => applied === wanted());
  setHandler(breakerReportUpdate, async (report) => {
    const before = m.view.state;
    applyReport(m, report, Date.now());
    if (m.view.state !== before) note(m, before);
    changed = true;
    await enforced();
    return m.view;
  });
  setHandler(breakerForceUpdate, async (order) => {
    const before = m.view.state;
    applyOrder(m, order, Date.now());
    note(m, before);
    changed = true;
    await enforced();
    return m.view;
  });
  setHandler(breakerAdmitUpdate, async (request) => {
    waiting += 1;
    changed = true;
    const free = () => admission(m, Date.now()) !== 'wait';
    const admitted = free() || (await condition(free, Math.max(1, request.waitMs)));
    waiting -= 1;
    if (admitted && admit(m, request.jobId, request.leaseMs, Date.now()) === 'probe') log.info('breaker:probe', { dependency: m.view.dependency, jobId: request.jobId });
    changed = true;
    // Answers once the loop took the change in, as the other updates do: the answer then comes
    // after the loop's commands however many interceptors wrap the handler (tracing), so a
    // history replays the same with them or without.
    await enforced();
    return { admitted, view: m.view };
  });
  setHandler(breakerViewQuery, () => m.view);
  let memo = '';
  for (;;) {
    const want = wanted();
    if (want !== applied) {
      try {
        await setDependencyRate({ taskQueue: input.taskQueue, rate: want, reason: `durable-jobs breaker of ${input.dependency}: ${m.view.state}` });
        applied = want;
      } catch (err) {
        // A server without UpdateTaskQueueConfig: the workers' own gates are all that holds.
        log.warn('breaker:rate-not-set', { dependency: input.dependency, error: err instanceof Error ? err.message : String(err) });
        applied = want;
      }
      continue;
    }
    const shown = JSON.stringify(m.view);
    if (shown !== memo) {
      upsertMemo({ [breakerMemoKey]: m.view });
      memo = shown;
    }
    if (workflowInfo().historyLength > continueAfterEvents || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      return continueAsNewUnderCurrentProtocol<typeof dependencyBreakerWorkflow>({ ...input, settings: m.settings, machine: m, appliedRate: applied });
    }
    changed = false;
    const due = probeDueAt(m);
    // A turn's lease is timed only when it matters now (a probe's, or one an attempt waits behind):
    // an expired lease frees the turn for whoever asks next anyway.
    const lease = m.probing || waiting > 0 ? leaseEndsAt(m) : undefined;
    const deadlines = [due, lease].filter((at): at is number => at !== undefined);
    if (deadlines.length === 0) {
      await condition(() => changed);
      continue;
    }
    if (await condition(() => changed, Math.max(1, Math.min(...deadlines) - Date.now()))) continue;
    const before = m.view.state;
    const now = Date.now();
    if (due !== undefined && due <= now) startProbe(m, now);
    else expireLease(m, now);
    if (m.view.state !== before) note(m, before);
    changed = true;
  }
}

/** Logs a change of state: `breaker:opened`, `breaker:half-open`, `breaker:closed`. */
function note(m: BreakerMachine, before: string): void {
  const { view } = m;
  const name = view.state === 'open' ? 'breaker:opened' : view.state === 'closed' ? 'breaker:closed' : 'breaker:half-open';
  const level = view.state === 'open' ? 'warn' : 'info';
  log[level](name, { dependency: view.dependency, from: before, why: view.why, ...(view.forced ? { forced: view.forced } : {}), ...(view.probeAt ? { probeAt: view.probeAt } : {}) });
}
