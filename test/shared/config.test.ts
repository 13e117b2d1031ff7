import assert from 'node:assert/strict';
import path from 'node:path';
import { loadConfig } from '../../src/shared/config';
import { ConfigError } from '../../src/shared/errors';

describe('loadConfig', () => {
  it('applies defaults', () => {
    const c = loadConfig({}, { HOME: '/home/x' });
    assert.equal(c.temporalAddress, undefined);
    assert.equal(c.devServerPort, 7233);
    assert.equal(c.devServerUiPort, 8233);
    assert.equal(c.namespace, 'default');
    assert.equal(c.taskQueue, 'durable-jobs');
    assert.equal(c.outboxDir, path.resolve('.data/outbox'));
    assert.equal(c.tls, false);
  });

  it('prefers an explicit option over the env var over the default', () => {
    const env = { DEV_SERVER_PORT: '9000', TEMPORAL_NAMESPACE: 'from-env' };
    assert.equal(loadConfig({}, env).devServerPort, 9000);
    assert.equal(loadConfig({ devServerPort: 9100 }, env).devServerPort, 9100);
    assert.equal(loadConfig({}, env).namespace, 'from-env');
  });

  it('names every bad field by its env var', () => {
    const err = (() => {
      try {
        loadConfig({}, { DEV_SERVER_PORT: 'abc', SMTP_URL: 'http://x', LOG_LEVEL: 'loud' });
      } catch (e) {
        return e;
      }
    })();
    assert.ok(err instanceof ConfigError);
    assert.deepEqual(err.issues.map((i) => i.path).sort(), ['DEV_SERVER_PORT', 'LOG_LEVEL', 'SMTP_URL']);
    assert.match(err.message, /DEV_SERVER_PORT: .*"abc"/);
  });

  it('turns TLS on when an API key is given', () => {
    assert.equal(loadConfig({}, { TEMPORAL_API_KEY: 'k' }).tls, true);
  });
});
