import assert from 'node:assert/strict';
import { planSteps } from '../../src/client/redrive-plan';

describe('redrive plan from the ledger (planSteps)', () => {
  const at = (s: number) => `2026-12-01T00:00:0${s}.000Z`;

  it('a compensated payment: reserve done and undone, capture and release not done; nothing runs twice', () => {
    const plan = planSteps(['reserve', 'capture', 'release'], [{ step: 'reserve', created_at: at(1) }, { step: 'compensate:reserve', created_at: at(2) }]);
    assert.deepEqual(plan.map((s) => [s.step, s.fate, s.effect]), [
      ['reserve', 'undone', 'done, then undone by compensation: it will run again'],
      ['capture', 'not-done', 'not recorded as done: it will run'],
      ['release', 'not-done', 'not recorded as done: it will run'],
    ]);
    assert.deepEqual([plan[0]!.doneAt, plan[0]!.undoneAt], [at(1), at(2)]);
  });

  it('flags a step done and not undone: it will run again', () => {
    const plan = planSteps(['reserve', 'capture', 'release'], [{ step: 'reserve', created_at: at(1) }, { step: 'capture', created_at: at(2) }, { step: 'compensate:reserve', created_at: at(3) }]);
    assert.deepEqual(plan.filter((s) => s.fate === 'done-not-undone').map((s) => [s.step, s.effect]), [['capture', 'done and not undone: it will run again']]);
  });

  it('adds steps only the ledger knows, in their recorded order, and an undo that found nothing', () => {
    const plan = planSteps(['sync'], [{ step: 'page:1', created_at: at(1) }, { step: 'page:2', created_at: at(2) }, { step: 'compensate:other', created_at: at(3) }]);
    assert.deepEqual(plan.map((s) => [s.step, s.fate]), [['sync', 'not-done'], ['page:1', 'done-not-undone'], ['page:2', 'done-not-undone'], ['other', 'not-done']]);
    assert.match(plan[3]!.effect, /its undo found nothing to undo/);
  });
});
