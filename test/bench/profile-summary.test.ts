import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { placeOf, selfTimeByPlace } from '../../bench/profile-summary';

// bench/profile-summary.ts reads the profiles `npm run bench -- --profile DIR` writes: here a real
// V8 profile of a process that loads zod.
describe('bench/profile-summary.ts', function () {
  this.timeout(60_000);

  it('groups a real CPU profile\'s self time by package and by Node\'s internals', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'profile-summary-'));
    try {
      execFileSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-interval', '50', '-e', "require('zod').z.string().parse('x')"], { cwd: path.resolve(__dirname, '../..') });
      const [file] = await readdir(dir);
      const { span, places } = selfTimeByPlace(JSON.parse(await readFile(path.join(dir, file!), 'utf8')));
      const names = places.map(([place]) => place);
      assert.ok(names.includes('zod'), `zod among ${names.join(', ')}`);
      assert.ok(names.includes('node:internals'), `node:internals among ${names.join(', ')}`);
      const total = places.reduce((sum, [, ms]) => sum + ms, 0);
      assert.ok(total > 0 && total <= span * 1.01, `self times (${total} ms) add up to at most the profile's span (${span} ms)`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names our files by their source path, whether run from src or dist', () => {
    assert.equal(placeOf({ url: 'file:///repo/dist/workflow-kit/interceptors.js', functionName: 'execute' }), 'src/workflow-kit/interceptors');
    assert.equal(placeOf({ url: 'file:///repo/src/jobctl/cli.ts', functionName: 'main' }), 'src/jobctl/cli');
    assert.equal(placeOf({ url: 'file:///repo/node_modules/@temporalio/worker/lib/worker.js', functionName: 'run' }), '@temporalio/worker');
    assert.equal(placeOf({ url: '', functionName: '(garbage collector)' }), '(garbage collector)');
  });
});
