import assert from 'node:assert/strict';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { BreakerGate } from '../../src/activity-kit/breaker-gate';
import { countsAgainst } from '../../src/activity-kit/breakers';
import { breakerSettings } from '../../src/catalog/dependency-plan';

const release = (gate: BreakerGate) => gate.releaseSlot({ permit: {} });

describe('a dependency’s slot gate and what its breaker counts (src/activity-kit/breaker-gate.ts, breakers.ts)', () => {
  it('hands out one slot until an attempt succeeds, then all; one again after a counted failure', async () => {
    const gate = new BreakerGate(3, 30_000);
    const never = new AbortController().signal;
    await gate.reserveSlot({}, never);
    assert.equal(gate.tryReserveSlot(), null, 'untrusted: one at a time');
    let second = false;
    const waiting = gate.reserveSlot({}, never).then(() => (second = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(second, false);
    gate.succeeded();
    await waiting;
    assert.ok(gate.tryReserveSlot(), 'trusted: up to its concurrency');
    assert.equal(gate.tryReserveSlot(), null, 'three reserved');
    gate.failed();
    release(gate);
    release(gate);
    assert.equal(gate.tryReserveSlot(), null, 'after a counted failure: one in flight already');
    release(gate);
    assert.ok(gate.tryReserveSlot());
  });

  it('trusts a success for the breaker window only: a dependency idle since meets one attempt at a time again', () => {
    let now = 0;
    const gate = new BreakerGate(5, 30_000, () => now);
    gate.succeeded();
    assert.equal(gate.limit, 5);
    now = 29_999;
    assert.equal(gate.limit, 5);
    now = 30_000;
    assert.equal(gate.limit, 1, 'idle for the window: untrusted');
    gate.succeeded();
    assert.equal(gate.limit, 5);
  });

  it('hands out one slot, trusted or not, while the breaker as last read is not closed or counts a failure', () => {
    const gate = new BreakerGate(5, 30_000);
    gate.succeeded();
    assert.equal(gate.limit, 5);
    gate.observe({ state: 'closed', suspect: true });
    assert.equal(gate.limit, 1, 'a failure counted somewhere in the fleet: attempts take turns');
    gate.observe({ state: 'half-open' });
    assert.equal(gate.limit, 1);
    gate.observe({ state: 'closed' });
    assert.equal(gate.limit, 5);
  });

  it('hands out no new slot while a failure report is unanswered, then goes on', async () => {
    const gate = new BreakerGate(2, 30_000);
    let answer!: () => void;
    gate.holdUntilAnswered(new Promise<void>((resolve) => (answer = resolve)), 60_000);
    assert.equal(gate.tryReserveSlot(), null, 'held');
    answer();
    await new Promise((r) => setImmediate(r));
    assert.ok(gate.tryReserveSlot(), 'answered: one slot again');
    release(gate);
    gate.holdUntilAnswered(new Promise<void>(() => {}), 20);
    assert.equal(gate.tryReserveSlot(), null, 'a report the breaker never answers holds');
    await new Promise((r) => setTimeout(r, 40));
    assert.ok(gate.tryReserveSlot(), 'for its cap at most');
  });

  it('rejects a waiting reservation with an AbortError when the SDK aborts it', async () => {
    const gate = new BreakerGate(1, 30_000);
    await gate.reserveSlot({}, new AbortController().signal);
    const controller = new AbortController();
    const waiting = gate.reserveSlot({}, controller.signal);
    controller.abort();
    await assert.rejects(waiting, { name: 'AbortError' });
    release(gate);
    assert.ok(gate.tryReserveSlot(), 'the aborted reservation took no slot');
  });

  it('counts retryable failures of the counted types only: never a non-retryable one, a cancellation, a shutdown or a wait for the open breaker', () => {
    const all = { settings: breakerSettings({ name: 'x' }) };
    const some = { settings: breakerSettings({ name: 'x', countErrorTypes: ['x:down'] }) };
    const failure = (type: string, nonRetryable = false) => ApplicationFailure.create({ type, message: 'm', nonRetryable });
    assert.equal(countsAgainst(all, failure('x:down'), []), true);
    assert.equal(countsAgainst(all, new Error('boom'), []), true);
    assert.equal(countsAgainst(all, failure('x:rejected', true), []), false);
    assert.equal(countsAgainst(all, failure('x:rejected'), ['x:rejected']), false, 'non-retryable by the preset');
    assert.equal(countsAgainst(all, new CancelledFailure('cancelled'), []), false);
    assert.equal(countsAgainst(all, failure('jobs:worker-shutdown'), []), false);
    assert.equal(countsAgainst(all, failure('jobs:breaker-open'), []), false, 'it never called the dependency');
    assert.equal(countsAgainst(some, failure('x:down'), []), true);
    assert.equal(countsAgainst(some, failure('x:other'), []), false);
  });
});
