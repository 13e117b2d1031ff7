import assert from 'node:assert/strict';
import path from 'node:path';
import { loadConfig, settingEnvNames } from '../../src/shared/config';
import { configEnvNames } from '../../src/shared/config-env-names';
import { ConfigError } from '../../src/shared/errors';
import { loadBuiltInSettings } from '../../src/jobs/settings';

describe('loadConfig', () => {
  it('lists every setting\'s variable in config-env-names.ts too (read there without loading the schemas)', () => {
    assert.deepEqual([...configEnvNames].sort(), [...settingEnvNames].sort());
  });

  it('applies defaults', () => {
    const c = loadConfig({}, { HOME: '/home/x' });
    assert.equal(c.temporalAddress, undefined);
    assert.equal(c.devServerPort, 7233);
    assert.equal(c.devServerUiPort, 8233);
    assert.equal(c.namespace, 'default');
    assert.equal(c.taskQueue, 'durable-jobs');
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
        loadConfig({}, { DEV_SERVER_PORT: 'abc', METRICS_PORT: 'x', LOG_LEVEL: 'loud' });
      } catch (e) {
        return e;
      }
    })();
    assert.ok(err instanceof ConfigError);
    assert.deepEqual(err.issues.map((i) => i.path).sort(), ['DEV_SERVER_PORT', 'LOG_LEVEL', 'METRICS_PORT']);
    assert.match(err.message, /DEV_SERVER_PORT: .*"abc"/);
    assert.match(err.message, /METRICS_PORT: must be a port, a whole number from 1 to 65535, or 0 for none \(got "x"\)/);
  });

  it('refuses a DATABASE_URL of another scheme, without echoing its password', () => {
    assert.throws(
      () => loadConfig({}, { DATABASE_URL: 'mysql://app:s3cret@db/jobs' }),
      (err: unknown) => err instanceof ConfigError && /DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL, or a SQLite file path \(got "mysql:\/\/app:\*\*\*@db\/jobs"\)/.test(err.message) && !err.message.includes('s3cret'),
    );
    assert.equal(loadConfig({}, { DATABASE_URL: 'postgresql://app:pw@db/jobs' }).databaseUrl, 'postgresql://app:pw@db/jobs');
    assert.equal(loadConfig({}, { DATABASE_URL: '/var/lib/jobs.db' }).databaseUrl, '/var/lib/jobs.db');
  });

  it('refuses half a client certificate, unreadable certificate files, and TLS off with a credential', () => {
    const message = (env: NodeJS.ProcessEnv) => {
      try {
        loadConfig({}, env);
        return '';
      } catch (err) {
        assert.ok(err instanceof ConfigError);
        return err.message;
      }
    };
    assert.match(message({ TEMPORAL_TLS_CERT: __filename }), /TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY: give the client certificate and its key together/);
    assert.match(message({ TEMPORAL_TLS_KEY: __filename }), /TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY: give the client certificate and its key together/);
    assert.match(message({ TEMPORAL_TLS_CERT: __filename, TEMPORAL_TLS_KEY: '/no/such/key.pem' }), /TEMPORAL_TLS_KEY: cannot read \/no\/such\/key\.pem/);
    const withKey = message({ TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'secret-key-123' });
    assert.match(withKey, /TEMPORAL_TLS: is false, but an API key or client certificate needs TLS/);
    assert.ok(!withKey.includes('secret-key-123'), 'the API key is not echoed');
    assert.equal(message({ TEMPORAL_TLS_CERT: __filename, TEMPORAL_TLS_KEY: __filename }), '');
  });

  it('turns TLS on when an API key is given', () => {
    assert.equal(loadConfig({}, { TEMPORAL_API_KEY: 'k' }).tls, true);
  });
});

describe('loadBuiltInSettings', () => {
  it('puts the outbox and reports under DATA_DIR by default', () => {
    const s = loadBuiltInSettings(path.resolve('.data'), {}, {});
    assert.equal(s.outboxDir, path.resolve('.data/outbox'));
    assert.equal(s.reportsDir, path.resolve('.data/reports'));
    assert.equal(s.smtpUrl, undefined);
  });

  it('names every bad field by its env var, without a URL password', () => {
    assert.throws(
      () => loadBuiltInSettings('/d', {}, { SMTP_URL: 'http://u:pw@x', SYNC_SOURCE_URL: 'ftp://x' }),
      (err: unknown) => err instanceof ConfigError && err.issues.map((i) => i.path).sort().join() === 'SMTP_URL,SYNC_SOURCE_URL' && !err.message.includes(':pw@'),
    );
  });
});
