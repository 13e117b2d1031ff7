import assert from 'node:assert/strict';
import { mkdir, mkdtemp, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { cachePaths } from '../../src/provision/cache';
import { assertReachable, firstWorking } from '../../src/provision/routes';
import { provisionTemporalCli } from '../../src/provision/temporal-cli';
import { loadConfig } from '../../src/shared/config';
import { ProvisionError } from '../../src/provision/errors';
import { freePort } from '../helpers/processes';

describe('provisioning routes', () => {
  it('returns the first route that works, without trying later ones', async () => {
    let laterTried = false;
    const found = await firstWorking('thing', [
      { name: 'a', attempt: () => Promise.reject(new Error('not set')) },
      { name: 'b', attempt: () => Promise.resolve('/bin/b') },
      { name: 'c', attempt: () => ((laterTried = true), Promise.resolve('/bin/c')) },
    ]);
    assert.deepEqual(found, { value: '/bin/b', route: 'b' });
    assert.equal(laterTried, false);
  });

  it('names every route and its reason when none works', async () => {
    const err = await firstWorking('Temporal CLI', [
      { name: 'TEMPORAL_CLI_PATH', attempt: () => Promise.reject(new Error('not set')) },
      { name: 'cache', attempt: () => Promise.reject(new Error('missing')) },
      { name: 'SDK download', attempt: () => Promise.reject(new Error('cannot reach temporal.download')) },
      { name: 'go install', attempt: () => Promise.reject(new Error('`go` is not installed')) },
    ]).catch((e: unknown) => e);
    assert.ok(err instanceof ProvisionError);
    assert.equal(err.failures.length, 4);
    assert.match(err.message, /^jobs:provision-failed: no route could provide the Temporal CLI:/);
    assert.match(err.message, /1\. TEMPORAL_CLI_PATH: not set\n {2}2\. cache: missing\n {2}3\. SDK download: cannot reach temporal\.download\n {2}4\. go install: `go` is not installed/);
  });

  it('stops at an explicit path that is set but unusable, instead of falling through to the next route', async () => {
    const missing = path.join(os.tmpdir(), 'no-such-temporal');
    const err = await provisionTemporalCli({ cacheDir: loadConfig().cacheDir, temporalCliPath: missing }).catch((e: unknown) => e);
    assert.ok(err instanceof ProvisionError);
    assert.equal(err.failures.length, 1);
    assert.match(err.message, new RegExp(`TEMPORAL_CLI_PATH: ${missing} does not exist or is not executable`));
  });

  it('fails fast when a download host cannot be connected to', async () => {
    const port = await freePort();
    const started = Date.now();
    await assert.rejects(assertReachable(`http://127.0.0.1:${port}/`, 5000), /cannot reach 127\.0\.0\.1/);
    // A refusal on loopback takes milliseconds: 1 s is ample margin and far short of the 5 s timeout.
    assert.ok(Date.now() - started < 1000, 'refused at once, not after the timeout');
  });

  it('uses TEMPORAL_CLI_PATH first when it points at an executable', async () => {
    const config = loadConfig();
    const cached = await provisionTemporalCli({ cacheDir: config.cacheDir, temporalCliPath: config.temporalCliPath });
    const emptyCache = await mkdtemp(path.join(os.tmpdir(), 'cache-'));
    const explicit = await provisionTemporalCli({ cacheDir: emptyCache, temporalCliPath: cached.value });
    assert.deepEqual(explicit, { value: cached.value, route: 'TEMPORAL_CLI_PATH' });
  });

  it("finds a CLI that the SDK's own download left in the cache", async () => {
    const config = loadConfig();
    const real = (await provisionTemporalCli({ cacheDir: config.cacheDir, temporalCliPath: config.temporalCliPath })).value;
    const cacheDir = await mkdtemp(path.join(os.tmpdir(), 'cache-'));
    const sdkDownloaded = cachePaths(cacheDir).sdkDownloadedCli;
    await mkdir(path.dirname(sdkDownloaded), { recursive: true });
    await symlink(real, sdkDownloaded);
    const found = await provisionTemporalCli({ cacheDir });
    assert.equal(found.value, sdkDownloaded);
    assert.match(found.route, /^cache/);
    assert.match(path.basename(sdkDownloaded), /^temporal-sdk-typescript-1\.24\.\d+$/);
  });
});
