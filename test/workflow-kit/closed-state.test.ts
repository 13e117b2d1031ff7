import assert from 'node:assert/strict';
import { jobOutlineOf } from '../../src/catalog/job-outline';
import { catalog } from '../../src/jobs/catalog';
import { completedState, sameState } from '../../src/workflow-kit/closed-state';

const payment = catalog.definition('process-payment')!;
const email = catalog.definition('send-email')!;

describe('a completed job’s final state from its outline and last step (completedState)', () => {
  it('names the last step and its preset, with every declared step done', () => {
    const outline = jobOutlineOf(payment);
    const last = outline.steps.at(-1)!;
    const state = completedState(outline, { step: last, preset: 'main' });
    assert.equal(state.step, last);
    assert.equal(state.preset, 'main');
    assert.deepEqual(state.steps, outline.steps);
    assert.deepEqual(state.progress, { done: outline.steps.length, total: outline.steps.length, unit: 'steps' });
    assert.deepEqual(state.maxAttempts, outline.maxAttempts);
  });

  it('gives a type without declared steps its own name as its one step, the main preset and no progress', () => {
    const outline = jobOutlineOf({ ...email, steps: undefined });
    const state = completedState(outline, undefined);
    assert.equal(state.step, 'send-email');
    assert.equal(state.preset, email.mainPreset);
    assert.equal(state.progress, undefined);
  });
});

describe('two final states compared as written (sameState)', () => {
  const outline = jobOutlineOf(payment);
  const base = completedState(outline, { step: outline.steps[0]!, preset: 'main' });

  it('holds states equal whatever the order of their keys, and leaves out undefined fields as JSON does', () => {
    const reordered = { maxAttempts: { ...base.maxAttempts }, preset: base.preset, steps: [...base.steps], step: base.step, progress: base.progress, configWait: undefined };
    assert.ok(sameState(base, reordered));
  });

  it('tells apart any difference a reader would see: a step, progress, a compensation, a run number', () => {
    assert.ok(!sameState(base, { ...base, step: 'other' }));
    assert.ok(!sameState(base, { ...base, progress: { done: 1, total: 3, unit: 'steps' } }));
    assert.ok(!sameState(base, { ...base, compensation: { status: 'done', undone: ['reserve'] } }));
    assert.ok(!sameState(base, { ...base, run: 2 }));
    assert.ok(!sameState(base, { ...base, maxAttempts: { ...base.maxAttempts, main: 99 } }));
  });
});
