import assert from 'node:assert/strict';
import { filterSearch, parseJobFilters, parseFilterTime } from '../../src/console/job-filters';
import { PageCursors } from '../../src/console/page-cursor';

describe('console: the jobs list filters (parseJobFilters)', () => {
  const types = ['noop', 'send-email'];

  it('reads type, status, prefix and a time range, UTC unless an offset is given', () => {
    const { options, issues } = parseJobFilters({ type: 'noop', status: 'failed', prefix: ' a b', from: '2026-01-01', to: '2026-01-01T10:30+02:00' }, types);
    assert.deepEqual(issues, []);
    assert.deepEqual(options, { type: 'noop', status: 'failed', idPrefix: ' a b', createdFrom: new Date('2026-01-01T00:00:00Z'), createdBefore: new Date('2026-01-01T08:30:00Z') });
    assert.deepEqual(parseFilterTime('2026-01-01 09:30:15.250'), new Date('2026-01-01T09:30:15.250Z'));
  });

  it('refuses a date whose month or day does not exist, naming the field (it crashed the page)', () => {
    assert.equal(parseFilterTime('2026-13-45'), undefined);
    const { issues } = parseJobFilters({ from: '2026-13-45', to: '2026-00-10' }, types);
    assert.deepEqual(issues.map((i) => i.path).sort(), ['from', 'to']);
  });

  it('names each bad field', () => {
    const { issues } = parseJobFilters({ type: 'nope', status: 'sleeping', from: '2026-02-30', to: 'yesterday', cursor: 'not a cursor!' }, types);
    assert.deepEqual(
      issues.map((i) => `${i.path}: ${i.message}`),
      [
        'type: must be one of noop, send-email',
        'status: must be one of running, completed, failed, cancelled, terminated, timed-out',
        'from: must be a date or date-time, e.g. 2026-01-01 or 2026-01-01T09:30:00Z (UTC unless it has an offset)',
        'to: must be a date or date-time, e.g. 2026-01-01 or 2026-01-01T09:30:00Z (UTC unless it has an offset)',
        'cursor: is not a page cursor this list gave for these filters: start again from the first page',
      ],
    );
    assert.deepEqual(parseJobFilters({ from: '2026-01-02', to: '2026-01-01' }, types).issues, [{ path: 'to', message: 'must be after from' }]);
  });

  it('keeps the filters given in the links it makes, and only those', () => {
    assert.equal(filterSearch({ type: 'noop', status: '', prefix: 'a&b=c', from: '', to: '' }, 'Q1-_'), '?type=noop&prefix=a%26b%3Dc&cursor=Q1-_');
    assert.equal(filterSearch({ type: '', status: '', prefix: '', from: '', to: '' }), '');
  });

  it("opens only the cursors it sealed, for the query they were sealed for", () => {
    const cursors = new PageCursors(Buffer.alloc(32, 7));
    const token = new Uint8Array([1, 2, 3, 250]);
    const cursor = cursors.seal(token, "JobType = 'noop'");
    assert.match(cursor, /^[A-Za-z0-9_-]+$/);
    assert.deepEqual(cursors.open(cursor, "JobType = 'noop'"), token);
    assert.equal(cursors.open(cursor, "JobType = 'send-email'"), undefined, 'another filter');
    assert.equal(new PageCursors(Buffer.alloc(32, 8)).open(cursor, "JobType = 'noop'"), undefined, 'another console');
    assert.equal(cursors.open(`${cursor.slice(0, -2)}AA`, "JobType = 'noop'"), undefined, 'changed');
    assert.equal(cursors.open('bm90LWEtdG9rZW4', "JobType = 'noop'"), undefined, 'made up');
  });
});
