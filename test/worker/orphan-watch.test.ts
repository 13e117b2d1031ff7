import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '../helpers/env';

// A real process tree: a shell (standing in for npm) starts a node process that watches its parent;
// the shell is SIGKILLed, as `kill -9 <npm pid>` would do, and the node process must notice.
describe('stopWhenOrphaned', function () {
  this.timeout(30_000);

  it('signals the process once the process that started it has died', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'orphan-'));
    const marker = path.join(dir, 'orphaned');
    const watching = path.join(dir, 'watching');
    const watcher = `require('./dist/worker/orphan-watch.js').stopWhenOrphaned(100, () => { require('fs').writeFileSync(${JSON.stringify(marker)}, 'orphaned'); process.exit(0); }); require('fs').writeFileSync(${JSON.stringify(watching)}, ''); setInterval(() => {}, 1000);`;
    const shell = spawn('/bin/sh', ['-c', `${JSON.stringify(process.execPath)} -e ${JSON.stringify(watcher)} & wait`], { cwd: repoRoot, stdio: 'ignore' });
    // The shell must outlive the start of the watch: a watcher started after it died takes init for its parent.
    for (const deadline = Date.now() + 15_000; (await readFile(watching, 'utf8').catch(() => undefined)) === undefined; ) {
      if (Date.now() > deadline) throw new Error('the watcher never started');
      await new Promise((r) => setTimeout(r, 50));
    }
    // 1.5 s is 15 of the watcher's checks: one that took a living parent for dead would have fired.
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(await readFile(marker, 'utf8').catch(() => undefined), undefined, 'nothing happens while its parent lives');
    shell.kill('SIGKILL');
    const deadline = Date.now() + 10_000;
    let seen: string | undefined;
    while (Date.now() < deadline && seen === undefined) {
      await new Promise((r) => setTimeout(r, 200));
      seen = await readFile(marker, 'utf8').catch(() => undefined);
    }
    assert.equal(seen, 'orphaned');
  });
});
