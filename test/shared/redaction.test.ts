import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { newKeyEntry } from '../../src/shared/encryption-keys';
import { redact, redactDeep, secretsFromEnv } from '../../src/shared/redact';
import { repoRoot, startDevServerEnv, uniqueId } from '../helpers/env';
import { freePort, runCommand, startProcess } from '../helpers/processes';
import { startSmtpServer } from '../helpers/smtp';

const jobctl = path.join(repoRoot, 'bin/jobctl.js');
const workerMain = path.join(repoRoot, 'dist/worker/main.js');
const migrateMain = path.join(repoRoot, 'dist/jobs/database/main.js');
const password = 'Pw-5ecret-d41d8cd9';
const apiKey = 'ak-5ecret-8f14e45f';

/** Fails naming the secret and the line it appeared on. */
function assertNoSecrets(output: string, secrets: readonly string[], what: string): void {
  for (const secret of secrets) {
    const line = output.split('\n').find((l) => l.includes(secret));
    assert.equal(line, undefined, `${what} printed the secret ${secret.slice(0, 6)}…: ${line}`);
  }
}

describe('secret redaction', () => {
  it('finds the secrets in the environment and replaces them, and URL passwords, wherever they appear', () => {
    const key = newKeyEntry('k1');
    const env = { TEMPORAL_API_KEY: apiKey, ENCRYPTION_KEYS: key, SMTP_URL: `smtp://u:${encodeURIComponent('p@ss/w0rd!')}@h`, DATABASE_URL: `postgres://u:${password}@h/db` };
    const secrets = secretsFromEnv(env);
    for (const s of [apiKey, key.split(':')[1]!, 'p@ss/w0rd!', password]) assert.ok(secrets.includes(s), `finds ${s}`);
    assert.ok(!secrets.includes('k1'), 'a key ID is not secret');
    assert.equal(redact(`auth ${apiKey} failed for smtps://bob:hunter22@mail`, secrets), 'auth *** failed for smtps://bob:***@mail');
    const line = redactDeep({ msg: 'x', err: new Error(`login ${password}`), nested: { list: [`key=${key.split(':')[1]}`] } }, secrets);
    assert.equal(line.err.message, 'login ***');
    assert.ok(line.err.stack?.includes('login ***'));
    assert.match(JSON.stringify(line), /"message":"login \*\*\*"/, 'a log line shows the message');
    assert.deepEqual(line.nested.list, ['key=***']);
  });

  // Each case: a process started the way a user would, with a secret in a bad or unusable setting.
  describe('in what the processes print when a setting is bad', function () {
    this.timeout(120_000);
    let dataDir: string;
    before(async () => {
      dataDir = await mkdtemp(path.join(os.tmpdir(), 'redact-'));
    });
    const key = newKeyEntry('k1');
    const shortKey = `k2:${Buffer.from('0123456789abcdef-secret').toString('base64')}`;
    const cases: { name: string; env: Record<string, string>; cmd: string[]; names: RegExp }[] = [
      { name: 'a malformed SMTP_URL', env: { SMTP_URL: `smtp://user:${password}@host:99999` }, cmd: [workerMain], names: /SMTP_URL/ },
      { name: 'an unreachable PostgreSQL DATABASE_URL', env: { DATABASE_URL: `postgres://u:${password}@127.0.0.1:1/db`, TEMPORAL_ADDRESS: '127.0.0.1:1' }, cmd: [workerMain], names: /DATABASE_URL/ },
      { name: 'a DATABASE_URL of the wrong kind', env: { DATABASE_URL: `mysql://u:${password}@h/db` }, cmd: [migrateMain], names: /DATABASE_URL/ },
      { name: 'an API key with TLS turned off', env: { TEMPORAL_API_KEY: apiKey, TEMPORAL_TLS: 'false' }, cmd: [jobctl, 'status', 'x'], names: /TEMPORAL_TLS/ },
      { name: 'an API key for an unreachable server', env: { TEMPORAL_API_KEY: apiKey, TEMPORAL_ADDRESS: '127.0.0.1:1' }, cmd: [jobctl, 'list'], names: /jobs:unreachable/ },
      { name: 'a short encryption key', env: { ENCRYPTION_KEYS: `${key},${shortKey}` }, cmd: [jobctl, 'list'], names: /ENCRYPTION_KEYS entry 2 \(k2\)/ },
      { name: 'a malformed key entry', env: { ENCRYPTION_KEYS: `${key.split(':')[1]}` }, cmd: [workerMain], names: /ENCRYPTION_KEYS entry 1/ },
      // A built-in job type's setting: the worker reads it (jobctl does not), and names it at start.
      { name: 'a malformed SYNC_SOURCE_URL', env: { SYNC_SOURCE_URL: `ftp://u:${password}@h/x` }, cmd: [workerMain], names: /SYNC_SOURCE_URL/ },
    ];
    for (const c of cases) {
      it(`names the setting and hides the secret: ${c.name}`, async () => {
        // METRICS=false: a metrics port taken by another worker on this machine would be the error instead.
        const env = { ...process.env, DATA_DIR: dataDir, TEMPORAL_ADDRESS: undefined, METRICS: 'false', ...c.env };
        const ran = await runCommand(process.execPath, c.cmd, env, repoRoot);
        const output = ran.stdout + ran.stderr;
        assert.notEqual(ran.code, 0, output);
        assert.match(output, c.names);
        assertNoSecrets(output, [password, apiKey, key.split(':')[1]!, shortKey.split(':')[1]!], c.name);
      });
    }
  });

  describe('in the logs of a running worker, at debug level', function () {
    this.timeout(240_000);
    let env: TestWorkflowEnvironment;
    before(async () => {
      env = await startDevServerEnv();
    });
    after(() => env?.teardown());

    it('logs an SMTP login refusal, with the SMTP password and the encryption key material hidden', async () => {
      const smtp = await startSmtpServer(() => undefined, { login: { user: 'jobs', pass: 'the-right-one' } });
      const key = newKeyEntry('k1');
      const processEnv = {
        ...process.env,
        TEMPORAL_ADDRESS: env.address,
        TEMPORAL_TASK_QUEUE: uniqueId('redact'),
        DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'redact-worker-')),
        SMTP_URL: smtp.url.replace("//", `//jobs:${password}@`),
        ENCRYPTION_KEYS: key,
        LOG_LEVEL: 'debug',
        LOG_FORMAT: 'json',
        METRICS_PORT: String(await freePort()),
      };
      const worker = startProcess(process.execPath, [workerMain], processEnv, repoRoot);
      try {
        await worker.waitFor('worker:started');
        const enqueued = await runCommand(process.execPath, [jobctl, 'enqueue', 'send-email', JSON.stringify({ to: 'ada@example.com', subject: 'Hi', body: 'Hello', userId: 'u1' })], processEnv, repoRoot);
        assert.equal(enqueued.code, 0, enqueued.stderr);
        await worker.waitFor('mail server refused the login');
      } finally {
        worker.child.kill('SIGTERM');
        await worker.exited;
        await smtp.close();
      }
      assertNoSecrets(worker.output(), [password, key.split(':')[1]!], 'the worker');
    });
  });
});
