import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { JobClient } from '../../src/client/job-client';
import { startCodecServer, type CodecServer } from '../../src/client/codec-server';
import { jobTypeSearchAttribute } from '../../src/catalog/start-job';
import { provisionTemporalCli } from '../../src/provision/temporal-cli';
import { loadConfig } from '../../src/shared/config';
import { dataConverterFor } from '../../src/shared/data-converter';
import { EncryptionCodec, keyIdMetadataKey } from '../../src/shared/encryption-codec';
import { newKeyEntry, parseKeyRing } from '../../src/shared/encryption-keys';
import { ErrorType } from '../../src/shared/errors';
import { inputPanelText, shows, withPage } from '../helpers/browser';
import { sqliteTestDb, type TestDb } from '../helpers/db';
import { createTestWorker, repoRoot, uniqueId } from '../helpers/env';
import { freePort, runCommand } from '../helpers/processes';
import { createActivities, testActivityDeps } from '../helpers/worker';
import { catalog } from '../../src/jobs/catalog';
import { startConsole } from '../../src/console/server';
import { hashPassword } from '../../src/console/users';
import { ProcessPaymentErrorType } from '../../src/jobs/process-payment';

const keyA = newKeyEntry('a');
const keyB = newKeyEntry('b');
const keyC = newKeyEntry('c');

// A dev server persisting to a SQLite file we can read, with its Web UI pointed at a codec server
// that holds keys a and b (not c).
describe('payload encryption against a real dev server', function () {
  this.timeout(300_000);
  let env: TestWorkflowEnvironment;
  let dbFile: string;
  let uiPort: number;
  let codecServer: CodecServer;
  let bundle: WorkflowBundleWithSourceMap;
  let testDb: TestDb;
  let reportsDir: string;
  const taskQueue = uniqueId('crypt');

  before(async () => {
    const config = loadConfig();
    const { value: cli } = await provisionTemporalCli({ cacheDir: config.cacheDir, temporalCliPath: config.temporalCliPath });
    const dir = await mkdtemp(path.join(os.tmpdir(), 'durable-jobs-crypt-'));
    reportsDir = path.join(dir, 'outbox');
    dbFile = path.join(dir, 'temporal.db');
    uiPort = await freePort();
    codecServer = await startCodecServer({
      codecs: [new EncryptionCodec(parseKeyRing(`${keyA},${keyB}`, 'test'))],
      port: 0,
      origins: [`http://127.0.0.1:${uiPort}`],
    });
    env = await TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: 'existing-path', path: cli },
        dbFilename: dbFile,
        ui: true,
        uiPort,
        searchAttributes: [jobTypeSearchAttribute],
        extraArgs: ['--log-level', 'error', '--ui-codec-endpoint', codecServer.url],
      },
    });
    bundle = await bundleWorkflowCode({
      workflowsPath: require.resolve('../../src/workflows'),
      workflowInterceptorModules: [require.resolve('../../src/workflow-kit/interceptors')],
      failureConverterPath: require.resolve('../../src/shared/failure-converter'),
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error },
    });
    testDb = await sqliteTestDb();
  });

  after(async () => {
    await testDb?.close();
    await env?.teardown();
    await codecServer?.close();
  });

  const jobClient = (dataConverter: DataConverter | undefined) => new JobClient(new Client({ connection: env.connection, dataConverter }), { catalog, taskQueue });
  const runWorker = async <T>(dataConverter: DataConverter | undefined, until: Promise<T>): Promise<T> => {
    const worker = await createTestWorker(env, bundle, {
      taskQueue,
      dataConverter,
      // The dead-letter hand-off starts a workflow, so its client encrypts too.
      activities: createActivities(testActivityDeps(testDb.db, { reportsDir })),
      deadLetterClient: new Client({ connection: env.connection, dataConverter }),
    });
    return worker.runUntil(until);
  };
  /** Every byte Temporal has written: the database file and its write-ahead log. */
  const temporalBytes = async () => Buffer.concat(await Promise.all(['', '-wal'].map((s) => readFile(dbFile + s).catch(() => Buffer.alloc(0)))));
  const email = (marker: string) => ({ to: 'ada@example.com', subject: `Reset ${marker}`, body: `Your link: https://example.com/reset/${marker}`, userId: 'u1' });

  const encryptedId = uniqueId('email');
  const encryptedMarker = `pt-${uniqueId('m')}`;

  it("stores only ciphertext in Temporal's database, payloads and failure messages alike, and the client reads the plaintext back", async () => {
    const a = dataConverterFor({ encryptionKeys: keyA })!;
    const jobs = jobClient(a);
    const { handle } = await jobs.enqueue('send-email', email(encryptedMarker), { id: encryptedId });
    const failedMarker = `acct-${encryptedMarker}`;
    const { handle: failing } = await jobs.enqueue('process-payment', { paymentId: uniqueId('p'), fromAccount: failedMarker, toAccount: 'bob', amount: 5, currency: 'EUR' });
    await runWorker(a, Promise.all([handle.result(), failing.result().catch(() => undefined)]));

    const record = await jobs.get(encryptedId);
    assert.equal(record.status, 'completed');
    assert.deepEqual(record.payload, email(encryptedMarker));
    const failed = await jobs.get(failing.workflowId);
    assert.equal(failed.error?.type, ProcessPaymentErrorType.UnknownAccount);
    assert.match(failed.error?.message ?? '', new RegExp(failedMarker), 'the failure message is decrypted for the reader');

    const stored = await temporalBytes();
    assert.ok(stored.includes(encryptedId), 'the scan reads the right database (job IDs are not encrypted)');
    assert.equal(stored.includes(encryptedMarker), false, 'no payload plaintext in the database');

    // The control: without keys the same scan finds the plaintext, so its silence above means something.
    // A client and worker without keys still carry a codec (the keyless one), which leaves plain payloads alone.
    const clearMarker = `clear-${uniqueId('m')}`;
    const plain = jobClient(dataConverterFor({}));
    const { handle: clear } = await plain.enqueue('send-email', email(clearMarker));
    await runWorker(dataConverterFor({}), clear.result());
    assert.ok((await temporalBytes()).includes(clearMarker));
    const clearRecord = await plain.get(clear.workflowId);
    assert.deepEqual([clearRecord.status, clearRecord.payload], ['completed', email(clearMarker)]);
  });

  it('without keys, JobClient and jobctl name the missing keys (jobs:codec-unknown-key) for an encrypted job', async () => {
    const keyless = jobClient(dataConverterFor({}));
    await assert.rejects(keyless.get(encryptedId), (err: Error & { type?: string }) => {
      assert.equal(err.type, ErrorType.CodecUnknownKey);
      assert.match(err.message, /encrypted with key "a", and no keys are configured; set ENCRYPTION_KEYS or ENCRYPTION_KEY_FILE/);
      return true;
    });
    await assert.rejects(keyless.result(encryptedId), { type: ErrorType.CodecUnknownKey });

    const ctlEnv = { ...process.env, ENCRYPTION_KEYS: undefined, ENCRYPTION_KEY_FILE: undefined, TEMPORAL_ADDRESS: env.address, TEMPORAL_TASK_QUEUE: taskQueue };
    for (const command of ['status', 'result']) {
      const ran = await runCommand(process.execPath, [path.join(repoRoot, 'bin/jobctl.js'), command, encryptedId], ctlEnv);
      assert.equal(ran.code, 1, `${command}: ${ran.stderr}`);
      assert.match(ran.stderr, /^jobs:codec-unknown-key: a payload is encrypted with key "a", and no keys are configured/, command);
    }
  });

  it('the console decrypts payloads only when it holds the key, and never sends them to a viewer who may not see payloads', async () => {
    const password = 'viewer-password-12';
    const keyed = await startConsole({ jobs: jobClient(dataConverterFor({ encryptionKeys: keyA })), port: 0 });
    const keyless = await startConsole({ jobs: jobClient(dataConverterFor({})), port: 0 });
    const viewerOnly = await startConsole({ jobs: jobClient(dataConverterFor({ encryptionKeys: keyA })), port: 0, accounts: [{ name: 'vic', role: 'viewer', passwordHash: await hashPassword(password) }] });
    try {
      const jobPage = (base: string, headers: Record<string, string> = {}) => fetch(`${base}/jobs/${encodeURIComponent(encryptedId)}`, { headers });
      const withKey = await jobPage(keyed.url);
      const withKeyText = await withKey.text();
      assert.equal(withKey.status, 200, withKeyText.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').slice(0, 600));
      assert.ok(withKeyText.includes(encryptedMarker), 'an operator of a console holding the key sees the plaintext');
      const withoutKey = await jobPage(keyless.url);
      const text = await withoutKey.text();
      assert.equal(withoutKey.status, 400);
      assert.match(text, /jobs:codec-unknown-key: a payload is encrypted with key &quot;a&quot;, and no keys are configured/, 'the page names the missing keys');
      assert.equal(text.includes(encryptedMarker), false);
      const signedIn = await fetch(`${viewerOnly.url}/login`, { method: 'POST', body: new URLSearchParams({ name: 'vic', password }), redirect: 'manual', headers: { origin: viewerOnly.url } });
      const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
      const asViewer = await jobPage(viewerOnly.url, { cookie });
      assert.equal(asViewer.status, 200);
      const viewerHtml = await asViewer.text();
      assert.match(viewerHtml, /hidden/);
      assert.equal(viewerHtml.includes(encryptedMarker), false, 'the decrypted payload never reaches a viewer without payloads');
    } finally {
      await Promise.all([keyed.close(), keyless.close(), viewerOnly.close()]);
    }
  });

  it('keeps old jobs readable after a key rotation, and a reader without the key gets a named error', async () => {
    const rotated = jobClient(dataConverterFor({ encryptionKeys: `${keyA},${keyB}` }));
    assert.deepEqual((await rotated.get(encryptedId)).payload, email(encryptedMarker));
    const { handle } = await rotated.enqueue('send-email', email(`rotated-${encryptedMarker}`));
    const started = await rotated.temporal.workflowService.getWorkflowExecutionHistory({ namespace: 'default', execution: { workflowId: handle.workflowId }, maximumPageSize: 1 });
    const input = started.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    assert.equal(Buffer.from(input?.metadata?.[keyIdMetadataKey] ?? []).toString(), 'b', 'new jobs use the newest key');
    await runWorker(dataConverterFor({ encryptionKeys: `${keyA},${keyB}` }), handle.result());

    await assert.rejects(jobClient(dataConverterFor({ encryptionKeys: keyB })).get(encryptedId), (err: Error & { type?: string; cause?: { type?: string } }) => {
      assert.equal(err.type ?? err.cause?.type, ErrorType.CodecUnknownKey);
      assert.match(err.message, /key "a"/);
      return true;
    });
  });

  it('shows the Web UI plaintext only through a codec server that holds the key', async () => {
    const unknownKeyId = uniqueId('email');
    const hiddenMarker = `hidden-${uniqueId('m')}`;
    const c = dataConverterFor({ encryptionKeys: keyC })!;
    const { handle } = await jobClient(c).enqueue('send-email', email(hiddenMarker), { id: unknownKeyId });
    await runWorker(c, handle.result());

    const page = (id: string) => `http://127.0.0.1:${uiPort}/namespaces/default/workflows/${encodeURIComponent(id)}`;
    const readable = await withPage(page(encryptedId), (p) => shows(p, encryptedMarker));
    assert.ok(readable, 'the UI shows the input decrypted by the codec server');
    const unreadable = await withPage(page(unknownKeyId), async (p) => ({
      own: await shows(p, unknownKeyId),
      // Once the Input panel has rendered (what the codec server could not decrypt), the page is settled.
      input: await inputPanelText(p),
      text: (await p.locator('body').textContent()) ?? '',
    }));
    assert.ok(unreadable.own, 'the page is the job’s own');
    assert.ok(unreadable.input.includes(Buffer.from('binary/encrypted').toString('base64')), `the Input panel shows the payload still encrypted: ${unreadable.input}`);
    assert.equal(unreadable.input.includes(hiddenMarker), false, `without its key, the UI cannot show the plaintext (Input: ${unreadable.input})`);
    assert.equal(unreadable.text.includes(hiddenMarker), false, 'nor anywhere else on the page');
  });
});
