import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { msToNumber } from '../../src/shared/sdk-internals';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import type { ActivityDeps } from '../../src/activities';
import { createSyncSourceActivities, pageStep, type SyncPageInput, type SyncPageResult, type SyncSourceOptions } from '../../src/activities/sync-source';
import { ledgerSteps } from '../../src/activity-kit/ledger';
import type { Db } from '../../src/jobs/database/schema';
import { describeEachDatabase } from '../helpers/db';
import { makeRecords, startSyncSource, type TestSyncSource } from '../helpers/sync-source';
import { SyncDataErrorType, syncDataJob } from '../../src/jobs/sync-data';
import { asJobStep } from '../../src/testing/run-step';

const mockEnv = (attempt = 1) => new MockActivityEnvironment({ attempt }, { logger: new DefaultLogger('ERROR', () => {}) });
const source = () => `src-${randomUUID().slice(0, 8)}`;

describeEachDatabase('syncPage activity', (getDb) => {
  let http: TestSyncSource;
  before(async () => {
    http = await startSyncSource();
  });
  after(async () => http?.close());

  function activities(db: Db, url: string | undefined, options?: SyncSourceOptions) {
    return createSyncSourceActivities({ db, syncSourceUrl: url } as ActivityDeps, options);
  }
  const input = (name: string, cursor: string | null = null, pageSize = 2): SyncPageInput => ({ source: name, cursor, pageSize });
  /** The activity, as a step of the job `job-<name>`, execution `run-1`. */
  const step = (syncPage: (input: SyncPageInput) => Promise<SyncPageResult>, name: string) => asJobStep(syncPage, { jobId: `job-${name}`, execution: 'run-1', definition: syncDataJob, preset: 'page' });
  async function run(name: string, cursor: string | null = null, options: { attempt?: number; url?: string; pageSize?: number } = {}) {
    const { syncPage } = activities(getDb().db, 'url' in options ? options.url : http.url);
    return (await mockEnv(options.attempt).run(step(syncPage, name), input(name, cursor, options.pageSize))) as SyncPageResult;
  }
  async function failure(name: string, options: { attempt?: number; url?: string } = {}): Promise<ApplicationFailure> {
    const err = await run(name, null, options).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof ApplicationFailure, `expected an ApplicationFailure, got ${String(err)}`);
    return err;
  }
  const rows = (name: string) => getDb().db.selectFrom('sync_records').selectAll().where('source', '=', name).orderBy('id').execute();

  it('fetches one page by cursor, upserts it and checkpoints it in the ledger', async () => {
    const name = source();
    http.setRecords(name, makeRecords(3));
    const first = await run(name);
    const second = await run(name, first.nextCursor);

    assert.deepEqual(first, { nextCursor: 'o2', upserted: 2, received: 2, replayed: false });
    assert.deepEqual(second, { nextCursor: null, upserted: 1, received: 1, replayed: false });
    const stored = await rows(name);
    assert.deepEqual(stored.map((r) => [r.id, JSON.parse(r.data), r.job_id, r.updated_at]), [
      ['r001', { n: 1 }, `job-${name}`, '2026-01-01T00:00:00.000Z'],
      ['r002', { n: 2 }, `job-${name}`, '2026-01-01T00:00:00.000Z'],
      ['r003', { n: 3 }, `job-${name}`, '2026-01-01T00:00:00.000Z'],
    ]);
    assert.deepEqual((await ledgerSteps(getDb().db, `job-${name}`)).map((s) => s.step).sort(), [pageStep(null), pageStep('o2')].sort());
    const sent = http.requests.filter((r) => r.source === name);
    assert.deepEqual(sent.map((r) => [r.cursor, r.limit]), [[null, 2], ['o2', 2]]);
  });

  it('sends credentials in SYNC_SOURCE_URL as HTTP Basic auth, and never puts them in an error', async () => {
    const name = source();
    http.setRecords(name, makeRecords(1));
    const withCredentials = http.url.replace('//', '//sync%40user:s3cret-Pw@');
    await run(name, null, { url: withCredentials });
    const sent = http.requests.filter((r) => r.source === name);
    assert.equal(sent[0]?.authorization, `Basic ${Buffer.from('sync@user:s3cret-Pw').toString('base64')}`);
    const err = await failure(source(), { url: 'http://sync:s3cret-Pw@127.0.0.1:1/feed' });
    assert.equal(err.type, SyncDataErrorType.SyncUnavailable);
    assert.ok(!err.message.includes('s3cret-Pw') && !String(err.stack).includes('s3cret-Pw'), err.message);
  });

  it('neither fetches nor writes a page that an earlier attempt committed', async () => {
    const name = source();
    http.setRecords(name, makeRecords(2));
    await run(name);
    http.setRecords(name, makeRecords(2, '2026-06-01T00:00:00.000Z'));
    const again = await run(name, null, { attempt: 2 });

    assert.deepEqual(again, { nextCursor: null, upserted: 2, received: 2, replayed: true });
    assert.equal(http.requests.filter((r) => r.source === name).length, 1);
    assert.ok((await rows(name)).every((r) => r.updated_at === '2026-01-01T00:00:00.000Z'));
  });

  it('overwrites a stored record only when the incoming updatedAt is newer or equal', async () => {
    const name = source();
    const { db } = getDb();
    await db
      .insertInto('sync_records')
      .values([
        { source: name, id: 'old', data: '{"v":"stored"}', job_id: 'x', updated_at: '2026-01-01T00:00:00.000Z' },
        { source: name, id: 'same', data: '{"v":"stored"}', job_id: 'x', updated_at: '2026-02-01T00:00:00.000Z' },
        { source: name, id: 'new', data: '{"v":"stored"}', job_id: 'x', updated_at: '2026-03-01T00:00:00.000Z' },
      ])
      .execute();
    http.setRecords(name, [
      { id: 'old', updatedAt: '2026-01-01T01:00:00+01:00', data: { v: 'equal, other zone' } },
      { id: 'same', updatedAt: '2026-02-02T00:00:00Z', data: { v: 'newer' } },
      { id: 'new', updatedAt: '2026-02-15T00:00:00Z', data: { v: 'older' } },
      { id: 'added', updatedAt: '2026-01-01T00:00:00Z', data: { v: 'added' } },
      { id: 'added', updatedAt: '2026-01-02T00:00:00Z', data: { v: 'added, newest duplicate' } },
    ]);
    const result = await run(name, null, { pageSize: 10 });

    assert.equal(result.upserted, 3, 'old (equal), same (newer) and added; not new (incoming older)');
    assert.deepEqual(Object.fromEntries((await rows(name)).map((r) => [r.id, JSON.parse(r.data).v])), {
      added: 'added, newest duplicate',
      new: 'stored',
      old: 'equal, other zone',
      same: 'newer',
    });
  });

  it('fails 429 with Retry-After seconds as retryable sync-data:sync-unavailable after exactly that delay', async () => {
    http.answerNext({ status: 429, headers: { 'retry-after': '120' } });
    const err = await failure(source(), { attempt: 3 });
    assert.equal(err.type, SyncDataErrorType.SyncUnavailable);
    assert.equal(err.nonRetryable, false);
    assert.equal(msToNumber(err.nextRetryDelay!), 120_000, 'Retry-After, not the schedule step (30s)');
  });

  it('reads a 503 HTTP-date Retry-After against the source Date header', async () => {
    const date = new Date(Date.now() - 3_600_000);
    date.setMilliseconds(0);
    const retryAt = new Date(date.getTime() + 45_000);
    http.answerNext({ status: 503, headers: { date: date.toUTCString(), 'retry-after': retryAt.toUTCString() } });
    const err = await failure(source());
    assert.equal(err.type, SyncDataErrorType.SyncUnavailable);
    assert.equal(msToNumber(err.nextRetryDelay!), 45_000);
  });

  it('retries 503 without Retry-After, 500 and refused connections on the preset schedule', async () => {
    http.answerNext({ status: 503 }, { status: 500, body: 'boom' });
    for (const err of [await failure(source(), { attempt: 2 }), await failure(source(), { attempt: 2 }), await failure(source(), { attempt: 2, url: 'http://127.0.0.1:1/' })]) {
      assert.equal(err.type, SyncDataErrorType.SyncUnavailable);
      assert.equal(err.nonRetryable, false);
      assert.equal(err.nextRetryDelay, '5s');
    }
  });

  it('gives up on a request that outlives requestTimeoutMs, as retryable', async () => {
    const name = source();
    let release!: () => void;
    http.script = (req) => (req.source === name ? new Promise((resolve) => (release = () => resolve(undefined))) : undefined);
    try {
      const { syncPage } = activities(getDb().db, http.url, { requestTimeoutMs: 200 });
      const err = await mockEnv().run(step(syncPage, name), input(name)).catch((e: unknown) => e);
      assert.ok(err instanceof ApplicationFailure);
      assert.equal(err.type, SyncDataErrorType.SyncUnavailable);
      assert.match(err.message, /timed out/);
    } finally {
      release?.();
      http.script = undefined;
    }
  });

  it('aborts the request in flight when the attempt is cancelled, and writes nothing', async () => {
    const name = source();
    http.setRecords(name, makeRecords(2));
    let release!: () => void;
    let arrived = false;
    http.script = (req) => (req.source === name ? ((arrived = true), new Promise((resolve) => (release = () => resolve(undefined)))) : undefined);
    try {
      const { syncPage } = activities(getDb().db, http.url);
      const env = mockEnv();
      const attempt = env.run(step(syncPage, name), input(name)).catch((e: unknown) => e);
      for (let i = 0; i < 200 && !arrived; i++) await new Promise((r) => setTimeout(r, 25));
      assert.ok(arrived, 'the request reached the source');
      env.cancel('CANCELLED');
      const err = await attempt;
      assert.ok(err instanceof CancelledFailure, `the attempt reports cancellation (not a timeout 20s later), got ${String(err)}`);
      release();
      // Nothing may be written in this window: the attempt has ended (above), so a write now could only
      // come from a request it left running, which the answer just released would finish in milliseconds.
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(await rows(name), []);
      assert.deepEqual(await ledgerSteps(getDb().db, `job-${name}`), []);
    } finally {
      release?.();
      http.script = undefined;
    }
  });

  it('fails other 4xx answers as non-retryable sync-data:sync-rejected', async () => {
    http.answerNext({ status: 404, body: '{"error":"no such source"}' });
    const err = await failure(source());
    assert.equal(err.type, SyncDataErrorType.SyncRejected);
    assert.equal(err.nonRetryable, true);
    assert.match(err.message, /404.*no such source/);
  });

  it('fails malformed JSON and schema violations as non-retryable sync-data:sync-invalid-data, writing nothing', async () => {
    const name = source();
    http.answerNext(
      { status: 200, body: '{"records": [' },
      { status: 200, body: JSON.stringify({ records: [{ id: 'a', updatedAt: 'yesterday', data: {} }], nextCursor: null }) },
      { status: 200, body: JSON.stringify({ records: [], nextCursor: 'o0' }) },
    );
    const malformed = await failure(name);
    const invalid = await failure(name);
    const { syncPage } = activities(getDb().db, http.url);
    const loop = await mockEnv().run(step(syncPage, name), input(name, 'o0')).catch((e: unknown) => e);

    for (const err of [malformed, invalid, loop]) {
      assert.ok(err instanceof ApplicationFailure);
      assert.equal(err.type, SyncDataErrorType.SyncInvalidData);
      assert.equal(err.nonRetryable, true);
    }
    assert.match(invalid.message, /response\.records\.0\.updatedAt/);
    assert.deepEqual(await rows(name), []);
    assert.deepEqual(await ledgerSteps(getDb().db, `job-${name}`), []);
  });

  it('fails as retryable jobs:missing-config when SYNC_SOURCE_URL is unset', async () => {
    const err = await failure(source(), { url: undefined });
    assert.equal(err.type, SyncDataErrorType.MissingConfig);
    assert.equal(err.nonRetryable, false);
    assert.equal(err.nextRetryDelay, '1s');
  });
});
