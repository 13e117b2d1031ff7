import assert from 'node:assert/strict';
import { breakerLine } from '../../src/jobctl/cli-breakers';
import type { BreakerView } from '../../src/client/breakers';

const base: BreakerView = { dependency: 'smtp', state: 'closed', since: '2026-12-07T00:00:00.000Z', why: 'a probe succeeded', opened: 1, changes: [] };

describe('jobctl breakers: one line per breaker (src/jobctl/cli-breakers.ts)', () => {
  it('says the state, since when and why; when the probe is due, or who holds it open; and when attempts take turns', () => {
    assert.equal(breakerLine(base), 'smtp: closed since 2026-12-07T00:00:00.000Z — a probe succeeded');
    assert.equal(breakerLine({ ...base, suspect: true }), 'smtp: closed since 2026-12-07T00:00:00.000Z — a probe succeeded — a failure is counted: attempts take turns until one succeeds');
    assert.equal(breakerLine({ ...base, state: 'open', why: '5 failures within 30s', probeAt: '2026-12-07T00:00:10.000Z' }), 'smtp: open since 2026-12-07T00:00:00.000Z — 5 failures within 30s — probe at 2026-12-07T00:00:10.000Z');
    assert.equal(breakerLine({ ...base, state: 'open', why: 'ordered by an operator: maintenance', forced: { by: 'ada' } }), 'smtp: open since 2026-12-07T00:00:00.000Z — ordered by an operator: maintenance — held open by ada');
    assert.equal(breakerLine({ ...base, since: '', why: 'never opened' }), 'smtp: closed — never opened');
  });

  it('keeps a reason’s control characters off the terminal', () => {
    assert.doesNotMatch(breakerLine({ ...base, why: 'ordered by an operator: \u001b[31mred' }), /\u001b/);
  });
});
