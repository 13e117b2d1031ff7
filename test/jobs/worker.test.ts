import assert from 'node:assert/strict';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, type LogEntry } from '@temporalio/worker';
import { worker } from '../../src/jobs/worker';
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
});
