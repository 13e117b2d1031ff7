import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { verifyPassword } from '../../src/console/users';
import { repoRoot, startDevServerEnv, uniqueId } from '../helpers/env';
import { freePort, startProcess } from '../helpers/processes';

const jobctl = path.join(repoRoot, 'bin/jobctl.js');

/** Runs `jobctl console hash-password` with `input` on stdin. */
function hashPassword(input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [jobctl, 'console', 'hash-password'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

// `jobctl console` is the console on its own, against any deployment jobctl reaches (npm test builds first).
describe('jobctl console (real dev server)', function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  before(async () => {
    env = await startDevServerEnv();
  });
  after(async () => env?.teardown());

  it('serves the console against the configured server until Ctrl-C, and refuses a non-loopback host without accounts', async () => {
    const port = await freePort();
    const vars = { ...process.env, TEMPORAL_ADDRESS: env.connection.options.address, TEMPORAL_TASK_QUEUE: uniqueId('tq-ctl-console'), CONSOLE_USERS_FILE: undefined, DATABASE_URL: undefined };
    const running = startProcess(process.execPath, [jobctl, 'console', '--port', String(port)], vars, repoRoot);
    try {
      await running.waitFor('Ctrl-C stops it', 30_000);
      assert.match(running.output(), new RegExp(`console on http://127.0.0.1:${port} \\(loopback, no accounts`));
      assert.match(await (await fetch(`http://127.0.0.1:${port}/`)).text(), /<h1>Overview<\/h1>/);
    } finally {
      running.child.kill('SIGINT');
      assert.equal(await running.exited, 0, running.output());
    }
    const wide = startProcess(process.execPath, [jobctl, 'console', '--host', '0.0.0.0', '--port', String(port)], vars, repoRoot);
    assert.notEqual(await wide.exited, 0);
    assert.match(wide.output(), /CONSOLE_USERS_FILE: is not set, and the console would listen on 0\.0\.0\.0/);
  });

  it('hashes a password from stdin for CONSOLE_USERS_FILE, and refuses a short or missing one as bad input (exit 2)', async () => {
    const ok = await hashPassword('a long enough password\n');
    assert.equal(ok.code, 0, ok.stderr);
    assert.ok(await verifyPassword('a long enough password', ok.stdout.trim()));
    const short = await hashPassword('short');
    assert.equal(short.code, 2, 'bad input, as the README\'s exit-code table says');
    assert.match(short.stderr, /at least 12 characters \(got 5\)/);
    assert.equal(short.stdout, '');
    const twoLines = await hashPassword('abcdefghijkl\nsecond line\n');
    assert.equal(twoLines.code, 2);
    assert.match(twoLines.stderr, /more than one line/);
    const none = await hashPassword('');
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no password on stdin/);
  });
});
