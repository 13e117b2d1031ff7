import assert from 'node:assert/strict';
import { admit } from '../../src/catalog/breaker-admission';
import { applyOrder, applyReport, newBreaker, probeDueAt, probeRate, startProbe, wantedRate, type BreakerReport } from '../../src/catalog/breaker-state';
import { breakerSettings } from '../../src/catalog/dependency-plan';

const settings = breakerSettings({ name: 'smtp', rate: 10, breaker: { failures: 3, window: '10s', coolDown: '5s', maxCoolDown: '15s' } });
const failure: BreakerReport = { outcome: 'failure', errorType: 'send-email:smtp-transient', message: 'ECONNREFUSED', settings };
const success: BreakerReport = { outcome: 'success', jobId: 'job-1', settings };

describe('a breaker’s state machine (src/catalog/breaker-state.ts)', () => {
  it('opens on the threshold of counted failures within the window, forgetting older ones; then stops attempts (rate 0)', () => {
    const m = newBreaker('smtp', settings, 0);
    assert.equal(wantedRate(m), 10, 'closed: the dependency’s own rate');
    assert.equal(applyReport(m, failure, 0), 'closed');
    assert.equal(applyReport(m, failure, 20_000), 'closed', 'the first failure is outside the 10 s window by now');
    assert.equal(applyReport(m, failure, 21_000), 'closed');
    assert.equal(applyReport(m, failure, 22_000), 'open');
    assert.match(m.view.why, /3 failures within 10s, the last send-email:smtp-transient: ECONNREFUSED/);
    assert.equal(wantedRate(m), 0);
    assert.equal(probeDueAt(m), 27_000, 'the probe after the 5 s cool-down');
    assert.equal(m.view.opened, 1);
    assert.deepEqual(m.view.changes.map((c) => `${c.from}→${c.to}`), ['closed→open']);
  });

  it('half-open lets one probe begin, then none; its success closes it, its failure reopens it for twice as long, at most the maximum', () => {
    const m = newBreaker('smtp', settings, 0);
    for (const at of [0, 1, 2]) applyReport(m, failure, at);
    startProbe(m, 5_002);
    assert.equal(m.view.state, 'half-open');
    assert.equal(wantedRate(m), probeRate, 'the server hands one attempt out');
    assert.equal(wantedRate(m, 1), 0, 'an attempt already waits for its turn: it is the probe, the server hands out no other');
    assert.equal(admit(m, 'job-0', 30_000, 6_000), 'probe');
    assert.equal(wantedRate(m), 0, 'the probe began: no other attempt');
    assert.equal(applyReport(m, failure, 6_500), 'open');
    assert.equal(m.view.coolDownMs, 10_000);
    startProbe(m, 16_500);
    admit(m, 'job-0', 30_000, 16_600);
    applyReport(m, { ...failure, jobId: 'job-0' }, 17_000);
    assert.equal(m.view.coolDownMs, 15_000, 'doubled, capped at maxCoolDown');
    startProbe(m, 32_000);
    admit(m, 'job-1', 30_000, 32_050);
    assert.equal(applyReport(m, success, 32_100), 'closed');
    assert.match(m.view.why, /a probe succeeded \(job job-1\)/);
    assert.equal(wantedRate(m), 10);
    for (const at of [40_000, 40_001, 40_002]) applyReport(m, failure, at);
    assert.equal(m.view.coolDownMs, 5_000, 'after closing, the next opening starts from the first cool-down again');
  });

  it('ignores what attempts that were in flight report while open, and successes while closed', () => {
    const m = newBreaker('smtp', settings, 0);
    for (const at of [0, 1, 2]) applyReport(m, failure, at);
    assert.equal(applyReport(m, failure, 3), 'open');
    assert.equal(applyReport(m, success, 4), 'open', 'a success while open does not close it: the probe does');
    assert.equal(m.view.opened, 1);
    const closed = newBreaker('smtp', settings, 0);
    applyReport(closed, success, 1);
    assert.deepEqual(closed.view.changes, []);
  });

  it('an operator holds it open (no probe is due) and closes it, each recorded with who and why', () => {
    const m = newBreaker('smtp', settings, 0);
    applyOrder(m, { state: 'open', by: 'ops-ada', reason: 'relay maintenance' }, 1_000);
    assert.equal(m.view.state, 'open');
    assert.equal(probeDueAt(m), undefined, 'held open: no probe');
    assert.deepEqual(m.view.forced, { by: 'ops-ada', reason: 'relay maintenance' });
    applyOrder(m, { state: 'closed', by: 'ops-bob' }, 2_000);
    assert.equal(m.view.state, 'closed');
    assert.equal(m.view.forced, undefined);
    assert.deepEqual(
      m.view.changes.map((c) => [c.from, c.to, c.by, c.why]),
      [
        ['closed', 'open', 'ops-ada', 'ordered by an operator: relay maintenance'],
        ['open', 'closed', 'ops-bob', 'ordered by an operator'],
      ],
    );
  });

  it('does not count a failure reported later than 10 s after it happened (no worker ran the breaker then)', () => {
    const m = newBreaker('smtp', settings, 0);
    for (const at of [100_000, 100_001, 100_002]) applyReport(m, { ...failure, at: at - 60_000 }, at);
    assert.equal(m.view.state, 'closed');
    for (const at of [100_003, 100_004, 100_005]) applyReport(m, { ...failure, at: at - 500 }, at);
    assert.equal(m.view.state, 'open');
  });

  it('an order that keeps the state is recorded, and the state keeps its age', () => {
    const m = newBreaker('smtp', settings, 0);
    for (const at of [0, 1, 2]) applyReport(m, failure, at);
    const since = m.view.since;
    applyOrder(m, { state: 'open', by: 'ops' }, 5_000);
    assert.equal(m.view.since, since);
    assert.deepEqual(m.view.forced, { by: 'ops' });
    assert.equal(probeDueAt(m), undefined);
    assert.deepEqual(m.view.changes.map((c) => `${c.from}→${c.to}`), ['closed→open', 'open→open']);
  });

  it('keeps its last 20 changes', () => {
    const m = newBreaker('smtp', settings, 0);
    for (let i = 0; i < 15; i++) {
      applyOrder(m, { state: 'open' }, i * 10);
      applyOrder(m, { state: 'closed' }, i * 10 + 5);
    }
    assert.equal(m.view.changes.length, 20);
    assert.equal(m.view.opened, 15);
  });
});
