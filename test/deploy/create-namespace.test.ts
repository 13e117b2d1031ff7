import assert from 'node:assert/strict';
import path from 'node:path';
import { provisionTemporalCli } from '../../src/provision/temporal-cli';
import { loadConfig } from '../../src/shared/config';
import { repoRoot } from '../helpers/env';
import { freePort, runCommand, startProcess, type Started } from '../helpers/processes';

// The compose cluster's setup script, run against a real (in-memory) dev server with the
// provisioned temporal CLI on PATH, as the compose admin-tools image has it.
describe('deploy/temporal/scripts/create-namespace.sh', function () {
  this.timeout(120_000);
  let cli: string;
  let server: Started | undefined;
  let address: string;

  before(async () => {
    cli = (await provisionTemporalCli({ cacheDir: loadConfig().cacheDir })).value;
    const port = await freePort();
    address = `127.0.0.1:${port}`;
    server = startProcess(cli, ['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(port), '--log-level', 'error'], process.env);
  });
  after(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
  });

  it('creates the namespace and registers the JobType search attribute, and is idempotent', async () => {
    const env = { ...process.env, PATH: `${path.dirname(cli)}${path.delimiter}${process.env.PATH}`, NAMESPACE: 'jobs-setup-test', TEMPORAL_ADDRESS: address };
    const script = path.join(repoRoot, 'deploy/temporal/scripts/create-namespace.sh');
    for (const run of [1, 2]) {
      const ran = await runCommand('sh', [script], env);
      assert.equal(ran.code, 0, `run ${run}: ${ran.stdout}\n${ran.stderr}`);
      assert.match(ran.stdout, /namespace jobs-setup-test is ready/);
    }
    const listed = await runCommand(cli, ['operator', 'search-attribute', 'list', '-n', 'jobs-setup-test', '--address', address]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /JobType\s+Keyword/);
  });
});
