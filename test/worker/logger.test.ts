import assert from 'node:assert/strict';
import net from 'node:net';
import { loadConfig } from '../../src/shared/config';
import { ConfigError } from '../../src/shared/errors';
import { logFormat, prettyHead } from '../../src/worker/log-format';
import { installRuntime, logAttributes, metricsBindAddress } from '../../src/worker/logger';

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
