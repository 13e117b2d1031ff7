import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/shared/config';
import { ConfigError } from '../../src/shared/errors';
import { logFormat, prettyHead } from '../../src/worker/log-format';
import { installRuntime, logAttributes, metricsBindAddress } from '../../src/worker/logger';
import { repoRoot } from '../helpers/env';
import { runCommand } from '../helpers/processes';

describe('worker runtime: log format and metrics endpoint settings', () => {
  it('logs pretty lines on a terminal and JSON lines elsewhere, unless LOG_FORMAT says which', () => {
    assert.equal(logFormat(loadConfig({}, {}), true), 'pretty');
    assert.equal(logFormat(loadConfig({}, {}), false), 'json');
    assert.equal(logFormat(loadConfig({}, { LOG_FORMAT: 'json' }), true), 'json');
    assert.equal(logFormat(loadConfig({}, { LOG_FORMAT: 'pretty' }), false), 'pretty');
    assert.throws(() => loadConfig({}, { LOG_FORMAT: 'yaml' }), /LOG_FORMAT/);
  });

  it('heads a pretty line with the event, the job type, the job ID and the attempt', () => {
    assert.equal(prettyHead({ msg: 'job:attempt-failed', jobType: 'send-email', jobId: 'hello-1', attempt: 2 }, 'msg'), 'job:attempt-failed send-email hello-1 #2');
    assert.equal(prettyHead({ msg: 'worker:started' }, 'msg'), 'worker:started');
  });

  it("writes an SDK log entry's attributes without the activity's task token", () => {
    const meta = { sdkComponent: 'activity', activityId: '1', attempt: 2, taskToken: 'CiQ5Zj…', workflowId: 'hello-1' };
    assert.deepEqual(logAttributes(meta), { sdkComponent: 'activity', activityId: '1', attempt: 2, workflowId: 'hello-1' });
    assert.equal(meta.taskToken, 'CiQ5Zj…', "the SDK's own object is left as it was");
    assert.deepEqual(logAttributes(undefined), {});
  });

  it('serves metrics on 0.0.0.0:9464 by default; METRICS=false or METRICS_PORT=0 turns them off; a bad port names the variable', () => {
    assert.equal(metricsBindAddress(loadConfig({}, {})), '0.0.0.0:9464');
    assert.equal(metricsBindAddress(loadConfig({}, { METRICS_HOST: '127.0.0.1', METRICS_PORT: '19464' })), '127.0.0.1:19464');
    assert.equal(metricsBindAddress(loadConfig({}, { METRICS_HOST: '::1' })), '[::1]:9464');
    assert.equal(metricsBindAddress(loadConfig({}, { METRICS: 'false' })), undefined);
    assert.equal(metricsBindAddress(loadConfig({}, { METRICS_PORT: '0' })), undefined);
    assert.throws(() => loadConfig({}, { METRICS_PORT: '70000' }), /METRICS_PORT/);
    assert.throws(() => loadConfig({}, { METRICS: 'maybe' }), /METRICS/);
    assert.throws(() => loadConfig({}, { METRICS_SAMPLE_INTERVAL: 'often' }), /METRICS_SAMPLE_INTERVAL/);
  });

  /** Listens on `host` (a free port, or `port`) until the test is over. */
  async function occupy(host: string, port = 0): Promise<{ port: number; close: () => Promise<void> }> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(port, host, resolve));
    return { port: (server.address() as net.AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
  }

  it('refuses a metrics port taken on another interface, naming METRICS_PORT and METRICS_HOST; the worker exits 1 with that message', async () => {
    // 127.0.0.2 is loopback too on Linux: the default 0.0.0.0 bind collides with it, though nothing answers on 127.0.0.1.
    const taken = await occupy('127.0.0.2');
    try {
      const config = loadConfig({}, { METRICS_PORT: String(taken.port), LOG_FORMAT: 'json' });
      const expected = new RegExp(`METRICS_PORT: 0\\.0\\.0\\.0:${taken.port} is already in use, on that interface or another; choose another METRICS_PORT or METRICS_HOST, or METRICS=false`);
      await assert.rejects(installRuntime(config), (err: unknown) => err instanceof ConfigError && expected.test(err.message));

      const env = { ...process.env, METRICS_HOST: undefined, METRICS: undefined, METRICS_PORT: String(taken.port), TEMPORAL_ADDRESS: '127.0.0.1:1', DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'metrics-port-')) };
      const worker = await runCommand(process.execPath, [path.join(repoRoot, 'dist/worker/main.js')], env, repoRoot);
      assert.equal(worker.code, 1, worker.stderr);
      assert.match(worker.stderr, expected);
      assert.doesNotMatch(worker.stderr + worker.stdout, /Failed to start prometheus metrics exporter/);
    } finally {
      await taken.close();
    }
  });

  it('names METRICS_HOST when it is not an address of this machine', async () => {
    const config = loadConfig({}, { METRICS_HOST: '192.0.2.1', METRICS_PORT: '19464', LOG_FORMAT: 'json' });
    await assert.rejects(installRuntime(config), /METRICS_HOST: cannot bind 192\.0\.2\.1:19464: 192\.0\.2\.1 is not an address of this machine/);
  });

  it('refuses a metrics port that is taken, naming METRICS_PORT, before installing anything', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    try {
      const config = loadConfig({}, { METRICS_HOST: '127.0.0.1', METRICS_PORT: String(port), LOG_FORMAT: 'json' });
      await assert.rejects(installRuntime(config), (err: unknown) => err instanceof ConfigError && /METRICS_PORT: 127\.0\.0\.1:\d+ is already in use.*METRICS=false/.test(err.message));
    } finally {
      server.close();
    }
  });
});
