import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
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
    const scripts = (require('../../package.json') as { scripts: Record<string, string> }).scripts;
    assert.equal(new Set(lanes.map((lane) => lane.name)).size, lanes.length);
    for (const lane of lanes) {
      assert.ok(scripts[`test:${lane.name}`]?.includes(`run.ts ${lane.name}`), `npm run test:${lane.name} runs the ${lane.name} lane`);
      for (const part of lane.needs) assert.ok((provisionPartNames as readonly string[]).includes(part), `${lane.name} needs ${part}`);
    }
  });
});
