import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { JobClient } from '../../src/client/job-client';
import { isListening } from '../../src/shared/net';
import { pidFile, stopLeftoverDevServer } from '../../src/dev/leftover-dev-server';
import { uniqueId } from '../helpers/env';
import { freePort, type Started } from '../helpers/processes';
import { startOnFreePorts } from '../helpers/npm-start';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp';
import { killIfRunning, until } from '../helpers/worker-process';
import { catalog } from '../../src/jobs/catalog';

const payload = { to: 'ada@example.com', subject: 'Impatient', body: 'Ctrl-C twice', userId: 'u-signals' };

// `npm start` (dev server + worker) as a real process, stopped the ways people stop it.
describe('npm start under repeated and fatal signals', function () {
  this.timeout(600_000);
  let env: NodeJS.ProcessEnv;
  let dataDir: string;
  let grpcPort: number;
  let uiPort: number;
  let smtp: TestSmtpServer;
  const started: Started[] = [];

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'durable-jobs-signals-'));
    grpcPort = await freePort();
    uiPort = await freePort();
    smtp = await startSmtpServer(undefined, { holdData: (attempt) => (attempt === 1 ? Infinity : undefined) });
    env = {
      ...process.env,
      TEMPORAL_ADDRESS: undefined,
      DATA_DIR: dataDir,
      DEV_SERVER_PORT: String(grpcPort),
      DEV_SERVER_UI_PORT: String(uiPort),
      DEV_SERVER_HTTP_PORT: String(await freePort()),
      TEMPORAL_TASK_QUEUE: uniqueId('signals'),
      SMTP_URL: smtp.url,
      SHUTDOWN_GRACE_TIME: '10m',
      // Never the default 9464: other workers on this machine may serve it.
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: String(await freePort()),
    };
  });
  after(async () => {
    for (const s of started) {
      if (s.child.exitCode === null && s.child.signalCode === null) {
        s.child.kill('SIGTERM');
        await s.exited;
      }
    }
    await smtp?.close();
    // A failed run may have left its dev server behind; stop it the way the next npm start would.
    if (dataDir) await stopLeftoverDevServer(dataDir, path.join(dataDir, 'temporal.db'));
  });

  const start = async () => {
    // Each start on new ports (startOnFreePorts): a start is clean by its data directory (the pid
    // file, the database), not by its ports.
    const system = await startOnFreePorts(env, ['DEV_SERVER_PORT', 'DEV_SERVER_UI_PORT', 'DEV_SERVER_HTTP_PORT'], 240_000);
    grpcPort = Number(env.DEV_SERVER_PORT);
    uiPort = Number(env.DEV_SERVER_UI_PORT);
    started.push(system);
    return system;
  };
  const serverUp = () => isListening('127.0.0.1', grpcPort);

  it('a second Ctrl-C during a long drain stops the dev server and exits; the next start is clean and finishes the job', async () => {
    const first = await start();
    const jobs = await JobClient.connect({ catalog, temporalAddress: `127.0.0.1:${grpcPort}`, taskQueue: env.TEMPORAL_TASK_QUEUE });
    try {
      const { id } = await jobs.enqueue('send-email', payload, { id: uniqueId('twice') });
      await until('the attempt is in the middle of its SMTP transaction', () => smtp.holding() === 1);

      first.child.kill('SIGINT');
      await first.waitFor('"state":"DRAINING"');
      first.child.kill('SIGINT');
      assert.equal(await first.exited, 130, first.output());
      assert.match(first.output(), /shutdown:forced/);
      assert.equal(await serverUp(), false, 'no dev server is left behind');
      assert.equal(await isListening('127.0.0.1', uiPort), false);
      assert.equal(existsSync(pidFile(dataDir)), false, 'nothing for the next start to clean up');
      await until('the cut-short attempt’s connection is gone', () => smtp.abandoned() === 1, 10_000);
      assert.equal(smtp.received.length, 0, 'the cut-short attempt delivered nothing');

      const second = await start();
      assert.doesNotMatch(second.output(), /stopped the dev server/);
      await jobs.close();
      const again = await JobClient.connect({ catalog, temporalAddress: `127.0.0.1:${grpcPort}`, taskQueue: env.TEMPORAL_TASK_QUEUE });
      try {
        await until(`job ${id} completes`, async () => (await again.get(id)).status === 'completed', 180_000);
      } finally {
        await again.close();
      }
      assert.equal(smtp.received.length, 1, 'the job’s email went out once, from the retry');
      second.child.kill('SIGTERM');
      assert.equal(await second.exited, 0, second.output());
      assert.equal(await serverUp(), false);
    } finally {
      await jobs.close().catch(() => undefined);
    }
  });

  it('after SIGKILL of npm start, its dev server stops too, and the next start is clean', async () => {
    const first = await start();
    await killIfRunning(first);
    // The guard removes the pid file once the server process has exited, not merely closed its ports.
    await until('the killed npm start’s dev server has stopped', async () => !(await serverUp()) && !(await isListening('127.0.0.1', uiPort)) && !existsSync(pidFile(dataDir)), 60_000);
    const second = await start();
    assert.doesNotMatch(second.output(), /stopped the dev server/, 'nothing was left for it to stop');
    assert.ok(await serverUp());
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0, second.output());
    assert.equal(await serverUp(), false);
    assert.equal(existsSync(pidFile(dataDir)), false);
  });
});
