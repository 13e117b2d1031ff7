import assert from 'node:assert/strict';
import { formatJobRecord } from '../../src/client/format';

describe('jobctl status text (formatJobRecord)', () => {
  it("shows the job's own report: its step among its steps, progress, compensation, and its run", () => {
    const text = formatJobRecord({
      id: 'payment:p1', type: 'process-payment', payload: {}, status: 'failed', attempts: 6, maxAttempts: 6, createdAt: '2026-12-01T00:00:00.000Z',
      step: 'capture', steps: ['reserve', 'capture', 'release'], progress: { done: 1, total: 3, unit: 'steps' },
      compensation: { status: 'done', undone: ['reserve'] }, run: 2,
    });
    assert.match(text, /^step: +capture \(2 of 3: reserve → capture → release\)$/m);
    assert.match(text, /^progress: +1\/3 steps$/m);
    assert.match(text, /^compensation: +done, undid reserve$/m);
    assert.match(text, /^run: +2$/m);
  });

  it('leaves out what the job did not report', () => {
    const text = formatJobRecord({ id: 'x', type: 'noop', payload: {}, status: 'completed', attempts: 1, maxAttempts: 4, createdAt: '2026-12-01T00:00:00.000Z' });
    assert.doesNotMatch(text, /^(step|progress|compensation|run):/m);
  });
});
