// The breaker of one dependency: a long-lived workflow on the shared queue that counts the failures
// workers report (an update, so the reporting worker learns the state at once), opens, probes and
// closes (src/catalog/breaker-state.ts), and holds the dependency's task queue to its state on the
// Temporal server: while open the server hands out no attempt against it, to any worker, so none
// starts and none uses up a retry. Its view is its memo, which jobctl reads with no worker up.
import { allHandlersFinished, condition, defineQuery, defineUpdate, log, setHandler, upsertMemo, workflowInfo } from '@temporalio/workflow';
import type { BreakerActivities } from '../activity-kit/breaker-activities';
import { applyOrder, applyReport, newBreaker, probeDueAt, startProbe, wantedRate, type BreakerInput, type BreakerMachine, type BreakerOrder, type BreakerReport, type BreakerView } from '../catalog/breaker-state';
import { breakerMemoKey, breakerUpdateNames } from '../catalog/dependency';
import { continueAsNewUnderCurrentProtocol, libraryActivities } from './library-activity-calls';

export const breakerReportUpdate = defineUpdate<BreakerView, [BreakerReport]>(breakerUpdateNames.report);
export const breakerForceUpdate = defineUpdate<BreakerView, [BreakerOrder]>(breakerUpdateNames.force);
export const breakerViewQuery = defineQuery<BreakerView>('breakerView');

/** How long a probe that began may go without a report before it counts as failed (its worker died). */
const probeReportLimitMs = 5 * 60_000;
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
  let probeBegan: number | undefined;
  // Each answers once the server holds the queue to the new state: a worker told `open`, or an
  // operator whose order returned, can count on no attempt starting.
  const enforced = () => condition(() => applied === wantedOrNull(m));
  setHandler(breakerReportUpdate, async (report) => {
    const before = m.view.state;
    applyReport(m, report, Date.now());
    if (report.outcome === 'probe' && m.probing && probeBegan === undefined) probeBegan = Date.now();
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
  setHandler(breakerViewQuery, () => m.view);
  let memo = '';
  for (;;) {
    if (!m.probing) probeBegan = undefined;
    const want = wantedOrNull(m);
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
    const deadline = due ?? (probeBegan === undefined ? undefined : probeBegan + probeReportLimitMs);
    if (deadline === undefined) {
      await condition(() => changed);
      continue;
    }
    if (await condition(() => changed, Math.max(1, deadline - Date.now()))) continue;
    const before = m.view.state;
    if (due !== undefined) startProbe(m, Date.now());
    else applyReport(m, { outcome: 'failure', message: `the probe sent no report within ${probeReportLimitMs / 60_000} minutes (its worker stopped?)`, settings: m.settings }, Date.now());
    note(m, before);
  }
}

/** The rate the queue should have, null for none. */
function wantedOrNull(m: BreakerMachine): number | null {
  return wantedRate(m) ?? null;
}

/** Logs a change of state: `breaker:opened`, `breaker:half-open`, `breaker:closed`. */
function note(m: BreakerMachine, before: string): void {
  const { view } = m;
  const name = view.state === 'open' ? 'breaker:opened' : view.state === 'closed' ? 'breaker:closed' : 'breaker:half-open';
  const level = view.state === 'open' ? 'warn' : 'info';
  log[level](name, { dependency: view.dependency, from: before, why: view.why, ...(view.forced ? { forced: view.forced } : {}), ...(view.probeAt ? { probeAt: view.probeAt } : {}) });
}
