import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { provisionPartNames } from '../../src/provision/parts';
import { repoRoot } from '../helpers/env';
import { lanes } from './lanes';

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

  it('refuses a TEST_LANES_PARALLEL that is not a whole number of lanes, with exit 2', async () => {
    await assert.rejects(runner(['unit'], { TEST_LANES_PARALLEL: '1.5' }), (err: { code?: number; stderr?: string }) => err.code === 2 && err.stderr?.includes(`TEST_LANES_PARALLEL must be a whole number of lanes, 1 or more (got '1.5')`) === true);
  });
});
