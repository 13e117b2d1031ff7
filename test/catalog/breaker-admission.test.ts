import assert from 'node:assert/strict';
import { admission, admit, expireLease, leaseEndsAt } from '../../src/catalog/breaker-admission';
import { applyOrder, applyReport, newBreaker, startProbe, type BreakerReport } from '../../src/catalog/breaker-state';
import { breakerSettings } from '../../src/catalog/dependency-plan';

const settings = breakerSettings({ name: 'smtp', breaker: { failures: 3, window: '10s', coolDown: '5s', maxCoolDown: '15s' } });
const failure = (jobId: string): BreakerReport => ({ outcome: 'failure', jobId, errorType: 'send-email:smtp-transient', message: 'ECONNREFUSED', settings });
const success = (jobId: string): BreakerReport => ({ outcome: 'success', jobId, settings });
const release = (jobId: string): BreakerReport => ({ outcome: 'release', jobId, settings });

describe('a breaker’s admissions (src/catalog/breaker-admission.ts)', () => {
  it('admits any attempt while closed with no failure counted, holding no turn', () => {
    const m = newBreaker('smtp', settings, 0);
    assert.equal(admit(m, 'a', 30_000, 1), 'go');
    assert.equal(admit(m, 'b', 30_000, 2), 'go');
    assert.equal(m.admitted, undefined);
    assert.equal(m.view.suspect, undefined);
  });

  it('after a counted failure, admits one attempt at a time until its report: the threshold is reached by admitted attempts alone', () => {
    const m = newBreaker('smtp', settings, 0);
    applyReport(m, failure('first'), 0);
    assert.equal(m.view.suspect, true, 'a failure is counted: suspect');
    assert.equal(admit(m, 'a', 30_000, 10), 'go');
    assert.equal(admit(m, 'b', 30_000, 11), 'wait', 'a’s turn is not over');
    assert.equal(admission(m, 12), 'wait');
    applyReport(m, failure('a'), 100);
    assert.equal(m.view.state, 'closed');
    assert.equal(admit(m, 'b', 30_000, 101), 'go', 'a reported: b’s turn');
    applyReport(m, failure('b'), 200);
    assert.equal(m.view.state, 'open', 'the third failure opens it');
    assert.equal(m.admitted, undefined);
    assert.equal(m.view.suspect, undefined, 'open, not suspect');
    assert.equal(admit(m, 'c', 30_000, 201), 'wait', 'open: no attempt');
  });

  it('a success of the admitted attempt ends the suspicion: attempts begin freely again, the failure still counted', () => {
    const m = newBreaker('smtp', settings, 0);
    applyReport(m, failure('first'), 0);
    admit(m, 'a', 30_000, 10);
    applyReport(m, success('a'), 50);
    assert.equal(m.view.suspect, undefined);
    assert.equal(admit(m, 'b', 30_000, 60), 'go');
    assert.equal(m.admitted, undefined);
    assert.equal(m.failures.length, 1, 'the failure stays in the window');
  });

  it('a success or release of an attempt it did not admit frees no turn', () => {
    const m = newBreaker('smtp', settings, 0);
    applyReport(m, failure('first'), 0);
    admit(m, 'a', 30_000, 10);
    applyReport(m, release('other'), 20);
    assert.equal(m.admitted?.jobId, 'a');
    applyReport(m, release('a'), 30);
    assert.equal(m.admitted, undefined);
    assert.equal(m.view.suspect, true, 'a release is no verdict: still suspect');
  });

  it('half-open admits one probe; a probe handed back (a job’s own error) lets the next attempt probe', () => {
    const m = newBreaker('smtp', settings, 0);
    for (const at of [0, 1, 2]) applyReport(m, failure(`f${at}`), at);
    assert.equal(admit(m, 'early', 30_000, 100), 'wait', 'open');
    startProbe(m, 5_002);
    assert.equal(admit(m, 'p1', 30_000, 5_010), 'probe');
    assert.equal(admit(m, 'p2', 30_000, 5_011), 'wait');
    applyReport(m, release('p1'), 5_100);
    assert.equal(m.view.state, 'half-open');
    assert.equal(admit(m, 'p2', 30_000, 5_101), 'probe');
    applyReport(m, success('p2'), 5_200);
    assert.equal(m.view.state, 'closed');
    assert.equal(admit(m, 'x', 30_000, 5_300), 'go');
  });

  it('a turn whose report never comes ends with its lease: a probe’s as a failed probe, any other’s freed', () => {
    const m = newBreaker('smtp', settings, 0);
    applyReport(m, failure('first'), 0);
    admit(m, 'a', 30_000, 10);
    assert.equal(leaseEndsAt(m), 30_010);
    expireLease(m, 30_000);
    assert.equal(m.admitted?.jobId, 'a', 'not yet');
    expireLease(m, 30_010);
    assert.equal(m.admitted, undefined);
    assert.equal(m.view.state, 'closed');

    for (const at of [40_000, 40_001, 40_002]) applyReport(m, failure(`f${at}`), at);
    assert.equal(m.view.state, 'open');
    startProbe(m, 45_001);
    admit(m, 'probe', 30_000, 45_002);
    expireLease(m, 75_002);
    assert.equal(m.view.state, 'open', 'the probe’s worker stopped: a failed probe');
    assert.equal(m.view.coolDownMs, 10_000, 'doubled');
    assert.match(m.view.why, /the probe \(job probe\) sent no report within its lease/);
  });

  it('an operator’s order ends any turn and the suspicion', () => {
    const m = newBreaker('smtp', settings, 0);
    applyReport(m, failure('first'), 0);
    admit(m, 'a', 30_000, 10);
    applyOrder(m, { state: 'closed', by: 'ops' }, 20);
    assert.equal(m.admitted, undefined);
    assert.equal(m.view.suspect, undefined);
    assert.equal(admit(m, 'b', 30_000, 30), 'go');
  });
});
