import assert from 'node:assert/strict';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../../src/shared/errors';
import { findProjectModule } from '../../src/shared/project-modules';

// How jobctl and the runners find a project's catalog and worker: --catalog, else
// DURABLE_JOBS_CATALOG, else the nearest package.json's "durable-jobs" field.
describe('findProjectModule', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'project-'));
    await writeFile(path.join(root, 'package.json'), JSON.stringify({ name: 'acme', 'durable-jobs': { catalog: './dist/catalog.js' } }));
    await mkdir(path.join(root, 'src', 'deep'), { recursive: true });
  });

  it('prefers the flag, then the variable, then package.json from the working directory up', () => {
    const cwd = path.join(root, 'src', 'deep');
    assert.deepEqual(findProjectModule('catalog', './x.js', { DURABLE_JOBS_CATALOG: './y.js' }, cwd), { path: path.join(cwd, 'x.js'), source: '--catalog' });
    assert.deepEqual(findProjectModule('catalog', undefined, { DURABLE_JOBS_CATALOG: './y.js' }, cwd), { path: path.join(cwd, 'y.js'), source: 'DURABLE_JOBS_CATALOG' });
    const found = findProjectModule('catalog', undefined, {}, cwd);
    assert.equal(found?.path, path.join(root, 'dist', 'catalog.js'), 'relative to the package.json');
    assert.match(found!.source, /package\.json .*"durable-jobs"\.catalog/);
    assert.equal(findProjectModule('worker', undefined, {}, cwd), undefined, 'no worker named');
  });

  it('refuses a package.json that is not JSON, or names something other than a path, naming the file', async () => {
    const bad = await mkdtemp(path.join(os.tmpdir(), 'project-'));
    await writeFile(path.join(bad, 'package.json'), '{ "name": ');
    assert.throws(() => findProjectModule('catalog', undefined, {}, bad), (err: unknown) => err instanceof ConfigError && err.message.includes(path.join(bad, 'package.json')) && /is not valid JSON/.test(err.message));
    await writeFile(path.join(bad, 'package.json'), JSON.stringify({ 'durable-jobs': { catalog: 42 } }));
    assert.throws(() => findProjectModule('catalog', undefined, {}, bad), /"durable-jobs"\.catalog: must be a module path such as "\.\/dist\/catalog\.js", got 42/);
  });
});
