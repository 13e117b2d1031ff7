import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { provisionPartNames } from '../../src/provision/parts';
import { repoRoot } from '../helpers/env';
import { lanes, suiteFolders } from './lanes';

describe('test lanes', () => {
  it('hold every test file exactly once, and only files that exist', () => {
    const onDisk = (readdirSync(path.join(repoRoot, 'test'), { recursive: true }) as string[])
      .filter((file) => file.endsWith('.test.ts') && !file.startsWith(`fixtures${path.sep}`))
      .map((file) => `test/${file.split(path.sep).join('/')}`)
      .sort();
    const listed = lanes.flatMap((lane) => lane.files.map((file) => ({ file, lane: lane.name })));
    const twice = listed.filter((entry, i) => listed.findIndex((other) => other.file === entry.file) !== i);
    assert.deepEqual(twice, [], 'files in more than one lane');
    assert.deepEqual(listed.map((entry) => entry.file).filter((file) => !existsSync(path.join(repoRoot, file))), [], 'listed files that do not exist');
    assert.deepEqual(onDisk.filter((file) => !listed.some((entry) => entry.file === file)), [], 'test files in no lane (add each to test/lanes/lanes.ts)');
  });

  it('mirror src/: each folder of test/ is named after the folder of src/ it tests, or is one of the suite’s own', () => {
    const folders = (root: string) => readdirSync(path.join(repoRoot, root), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    const source = folders('src');
    assert.deepEqual(folders('test').filter((folder) => !source.includes(folder) && !(folder in suiteFolders)), [], 'test folders named after no folder of src/ (rename them, or add them to suiteFolders with what they test)');
    assert.deepEqual(Object.keys(suiteFolders).filter((folder) => source.includes(folder)), [], 'suite folders that shadow a folder of src/');
  });

  it('have unique names, an npm script each, and need only parts npm run provision knows', () => {
    const { scripts } = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    assert.equal(new Set(lanes.map((lane) => lane.name)).size, lanes.length);
    for (const lane of lanes) {
      assert.ok(scripts[`test:${lane.name}`]?.includes(`run.ts ${lane.name}`), `npm run test:${lane.name} runs the ${lane.name} lane`);
      for (const part of lane.needs) assert.ok((provisionPartNames as readonly string[]).includes(part), `${lane.name} needs ${part}`);
    }
  });
});

describe('the lane runner (npm test)', () => {
  const runner = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    promisify(execFile)(process.execPath, [require.resolve('tsx/cli'), path.join(repoRoot, 'test/lanes/run.ts'), ...args], { env: { ...process.env, ...env } });

  it('refuses an unknown lane by name, listing the lanes, with exit 2', async () => {
    await assert.rejects(runner(['unit', 'intgration']), (err: { code?: number; stderr?: string }) => err.code === 2 && /unknown lane 'intgration'/.test(err.stderr ?? '') && /^ {2}integration +real worker processes/m.test(err.stderr ?? ''));
    await assert.rejects(runner(['--grep', 'x']), (err: { code?: number; stderr?: string }) => err.code === 2 && /unknown option '--grep', 'x'|unknown option '--grep'/.test(err.stderr ?? ''));
  });

  it('--help lists every lane with what it covers, exit 0', async () => {
    const { stdout } = await runner(['--help']);
    for (const lane of lanes) assert.ok(stdout.includes(`  ${lane.name.padEnd(12)} ${lane.summary}`), lane.name);
  });

  it('stops, with its lanes, once nobody reads its output (npm test | head)', async () => {
    const child = spawn(process.execPath, [require.resolve('tsx/cli'), path.join(repoRoot, 'test/lanes/run.ts'), 'unit'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.stdout.destroy();
    assert.equal(await exited, 141, 'ends at the closed pipe (128 + SIGPIPE), having stopped its lane');
  });

  it('has each failed test written by the summary reporter (title, file, error), for the runner to repeat at the end', async function () {
    this.timeout(60_000);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'reporter-'));
    try {
      const spec = path.join(dir, 'one.test.js');
      writeFileSync(spec, "describe('a suite', () => { it('passes', () => {}); it('fails here', () => { throw new Error('the reason, line one\\nline two'); }); });\n");
      const timesFile = path.join(dir, 'times.json');
      const mocha = promisify(execFile)(process.execPath, [require.resolve('mocha/bin/mocha.js'), '--no-config', '--reporter', path.join(repoRoot, 'test/helpers/summary-reporter.js'), '--require', 'tsx/cjs', spec], { cwd: repoRoot, env: { ...process.env, TEST_TIMES_FILE: timesFile } });
      await assert.rejects(mocha, (err: { stdout?: string }) => /mocha: 1 passed, 1 failed, 0 skipped/.test(err.stdout ?? ''));
      const written = JSON.parse(readFileSync(timesFile, 'utf8')) as { failed: { title: string; file?: string; error: string }[] };
      assert.equal(written.failed.length, 1);
      assert.equal(written.failed[0]!.title, 'a suite fails here');
      assert.equal(written.failed[0]!.file, path.relative(repoRoot, spec));
      assert.match(written.failed[0]!.error, /^Error: the reason, line one\nline two\n {4}at /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a TEST_LANES_PARALLEL that is not a whole number of lanes, with exit 2', async () => {
    await assert.rejects(runner(['unit'], { TEST_LANES_PARALLEL: '1.5' }), (err: { code?: number; stderr?: string }) => err.code === 2 && err.stderr?.includes(`TEST_LANES_PARALLEL must be a whole number of lanes, 1 or more (got '1.5')`) === true);
  });
});
