import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { provisionTemporalCli } from '../../src/provision/temporal-cli';
import { loadConfig } from '../../src/shared/config';
import { isListening } from '../../src/shared/net';
import { portTaken, startDevServer } from '../../src/dev/dev-server';
import { freePort } from '../helpers/processes';

/** Runs the CLI to its end; its exit code and standard error. */
function run(cli: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cli, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('exit', (code) => resolve({ code, stderr }));
  });
}

// The CLI finds its own ports (history, matching, metrics) free and binds them a moment later; on a
// busy machine one can be taken between the two and the dev server exits at once. `npm start`
// starts it again (up to three times) when that is why, and only then.
describe('starting the dev server when a port it chose is taken meanwhile', function () {
  this.timeout(180_000);
  let cli: string;
  let dir: string;
  before(async () => {
    const config = loadConfig();
    cli = (await provisionTemporalCli({ cacheDir: config.cacheDir, temporalCliPath: config.temporalCliPath })).value;
    dir = await mkdtemp(path.join(os.tmpdir(), 'durable-jobs-dev-start-'));
  });

  it('tells the CLI’s words for a port taken from its other failures', async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const taken = await run(cli, ['server', 'start-dev', '--headless', '--port', String(port), '--log-level', 'error', '--db-filename', path.join(dir, 'taken.db')]);
      assert.equal(taken.code, 1);
      assert.ok(portTaken(taken.stderr), taken.stderr);
    } finally {
      holder.close();
    }
    const bad = await run(cli, ['server', 'start-dev', '--headless', '--log-level', 'no-such-level']);
    assert.notEqual(bad.code, 0);
    assert.equal(portTaken(bad.stderr), false, bad.stderr);
  });

  /** A stand-in for the CLI that fails its first start with `words` (or every start, with `always`), then runs the real one. */
  async function flakyCli(name: string, words: string, always = false): Promise<string> {
    const marker = path.join(dir, `${name}.started`);
    const script = path.join(dir, `${name}.sh`);
    const fail = `echo '${words}' >&2; exit 1`;
    await writeFile(script, `#!/bin/sh\n${always ? fail : `if [ ! -e '${marker}' ]; then touch '${marker}'; ${fail}; fi\nexec '${cli}' "$@"`}\n`);
    await chmod(script, 0o755);
    return script;
  }

  const configIn = async (name: string) =>
    loadConfig({ dataDir: path.join(dir, name), devServerPort: await freePort(), devServerUiPort: await freePort(), devServerHttpPort: await freePort(), temporalAddress: undefined }, {});

  it('starts it again when a port it chose was taken, and says so', async () => {
    const lines: string[] = [];
    const config = await configIn('raced');
    const server = await startDevServer(await flakyCli('raced', 'time=… level=ERROR msg="listen tcp 127.0.0.1:40123: bind: address already in use"'), config, 60_000, (line) => lines.push(line));
    try {
      assert.equal(await isListening('127.0.0.1', config.devServerPort), true, 'the second start answers');
      assert.deepEqual(lines, ['the Temporal dev server exited before it was ready (a port it chose was taken meanwhile); starting it again (2 of 3)']);
    } finally {
      await server.stop();
    }
  });

  it('does not start it again for any other failure, nor more than three times', async () => {
    const lines: string[] = [];
    const record = (line: string) => void lines.push(line);
    await assert.rejects(startDevServer(await flakyCli('broken', 'Error: unable to open database file', true), await configIn('broken'), 60_000, record), /exited with code 1 before it was ready/);
    assert.deepEqual(lines, []);
    await assert.rejects(startDevServer(await flakyCli('always-taken', 'bind: address already in use', true), await configIn('always-taken'), 60_000, record), /exited with code 1 before it was ready/);
    assert.equal(lines.length, 2, lines.join('\n'));
  });
});
