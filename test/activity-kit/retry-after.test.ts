import assert from 'node:assert/strict';
import { parseRetryAfter } from '../../src/activity-kit/retry-after';

const now = Date.parse('2026-03-01T12:00:00.000Z');

describe('parseRetryAfter', () => {
  it('reads delay-seconds as milliseconds', () => {
    assert.equal(parseRetryAfter('120', now), 120_000);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
  });

  it('reads an IMF-fixdate HTTP-date relative to now', () => {
    assert.equal(parseRetryAfter('Sun, 01 Mar 2026 12:02:30 GMT', now), 150_000);
  });

  it('accepts the obsolete RFC 850 and asctime date forms', () => {
    assert.equal(parseRetryAfter('Sunday, 01-Mar-26 12:01:00 GMT', now), 60_000);
    assert.equal(parseRetryAfter('Sun Mar  1 12:00:10 2026', now), 10_000);
  });

  it('gives 0 for a date in the past', () => {
    assert.equal(parseRetryAfter('Sat, 28 Feb 2026 12:00:00 GMT', now), 0);
  });

  it('gives undefined for a missing or malformed header, so the retry schedule applies', () => {
    for (const header of [undefined, null, '', '-5', '1.5', '2 minutes', '2026-03-01T12:05:00Z', 'Sun, 01 Mar 2026 12:02:30 PST', 'soon']) {
      assert.equal(parseRetryAfter(header, now), undefined, `header ${JSON.stringify(header)}`);
    }
  });
});
