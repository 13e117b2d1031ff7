import assert from 'node:assert/strict';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, type LogEntry } from '@temporalio/worker';
import { catalog } from '../../src/jobs/catalog';
import { worker } from '../../src/app/worker';
import { ConfigError } from '../../src/shared/errors';
import { createWorker } from '../../src/worker/create-worker';
import { loadConfig } from '../../src/shared/config';
import type { ActivityContext } from '../../src/worker/define-worker';
import { sqliteTestDb, type TestDb } from '../helpers/db';

/** Runs `body` with these environment variables set, and puts the old ones back. */
async function withEnv<T>(vars: Record<string, string | undefined>, body: () => Promise<T> | T): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(vars);
  try {
    return await body();
  } finally {
    apply(saved);
  }
}

// The built-in worker definition as the worker runs it at start: its settings check and its activities factory.
describe('the built-in worker definition at start', () => {
  let testDb: TestDb;
  before(async () => {
    testDb = await sqliteTestDb();
  });
  after(() => testDb?.close());

  /** Builds the activities as the worker does at start; the warnings it logged. */
  async function startActivities(): Promise<LogEntry[]> {
    const logs: LogEntry[] = [];
    const logger = new DefaultLogger('WARN', (entry) => logs.push(entry));
    // A lazy connection: the built-in activities never call Temporal while they are built.
    const client = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
    const factory = worker.activities as (context: ActivityContext) => object;
    await factory({ db: testDb.db, client, config: loadConfig({ dataDir: '/tmp/unused' }, {}), logger });
    return logs;
  }

  it('warns at start that SMTP_TLS_REJECT_UNAUTHORIZED=false leaves the mail server unverified, naming the setting', async () => {
    const logs = await withEnv({ SMTP_URL: 'smtp://mail.example.com:587', SMTP_TLS_REJECT_UNAUTHORIZED: 'false' }, startActivities);
    assert.equal(logs.length, 1);
    assert.equal(logs[0]!.level, 'WARN');
    assert.match(logs[0]!.message, /^smtp:tls-unverified — SMTP_TLS_REJECT_UNAUTHORIZED=false: .*SMTP_CA_FILE/);
    assert.deepEqual(await withEnv({ SMTP_URL: 'smtp://mail.example.com:587', SMTP_TLS_REJECT_UNAUTHORIZED: undefined }, startActivities), []);
  });

  /** Runs the definition's settings check as the worker does at start; the warnings it logged. */
  function check(types: readonly string[], chosen?: readonly string[]): LogEntry[] {
    const logs: LogEntry[] = [];
    worker.checkSettings!(loadConfig({ dataDir: '/tmp/unused' }, {}), { types, chosen, logger: new DefaultLogger('WARN', (entry) => logs.push(entry)) });
    return logs;
  }

  it('refuses to start a worker asked to serve sync-data without SYNC_SOURCE_URL, naming it, before it connects anywhere', async () => {
    await withEnv({ SYNC_SOURCE_URL: undefined }, async () => {
      // Nothing listens there: the refusal comes before any connection.
      const config = loadConfig({ temporalAddress: '127.0.0.1:1', dataDir: '/tmp/unused', workerJobTypes: 'sync-data' }, {});
      await assert.rejects(createWorker({ ...worker, config }), (err: unknown) => err instanceof ConfigError && /SYNC_SOURCE_URL: is not set, and this worker serves sync-data/.test(err.message));
      assert.throws(() => check(['process-payment', 'sync-data'], ['send-email', 'sync-data']), /SYNC_SOURCE_URL/);
    });
    assert.deepEqual(await withEnv({ SYNC_SOURCE_URL: 'http://127.0.0.1:9/records' }, () => check(['sync-data'], ['sync-data'])), []);
  });

  it('starts a worker that serves sync-data only by default (npm start: every type) or on a shared queue, with a warning naming SYNC_SOURCE_URL', async () => {
    await withEnv({ SYNC_SOURCE_URL: undefined }, () => {
      for (const logs of [check(catalog.types), check(['process-payment', 'sync-data'], ['process-payment'])]) {
        assert.equal(logs.length, 1);
        assert.match(logs[0]!.message, /^sync-data:no-source — SYNC_SOURCE_URL is not set/);
      }
      assert.deepEqual(check(['send-email'], ['send-email']), [], 'a worker that does not serve sync-data needs no source');
    });
  });
});
