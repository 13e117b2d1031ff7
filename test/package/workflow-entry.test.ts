import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { repoRoot } from '../helpers/env';

// The built `durable-jobs/workflow` entry, bundled by the SDK's own bundler from a user's
// workflows file, as a worker bundles it. The bundler rejects Node built-ins outright; zod, the
// payload schemas and the catalog would bundle but cost every job their evaluation
// (docs/performance.md), so the bundle is searched for them. test/workflow-kit/bundle-imports.test.ts
// walks the sources; this checks what ships (npm test builds first).

const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

describe('the built durable-jobs/workflow entry in a workflow bundle', function () {
  this.timeout(120_000);
  let dir: string;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'durable-jobs-workflow-entry-'));
    // The package resolves by its name through its exports map, as from a user's node_modules.
    await mkdir(path.join(dir, 'node_modules'));
    await symlink(repoRoot, path.join(dir, 'node_modules/durable-jobs'), 'dir');
    await symlink(path.join(repoRoot, 'node_modules/@temporalio'), path.join(dir, 'node_modules/@temporalio'), 'dir');
  });

  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const bundle = async (name: string, source: string) => {
    const workflowsPath = path.join(dir, name);
    await writeFile(workflowsPath, source);
    return bundleWorkflowCode({ workflowsPath, workflowInterceptorModules: [path.join(repoRoot, 'dist/workflow-kit/interceptors.js')], logger: quiet });
  };

  it('bundles with every export of the entry, and holds neither zod nor a schema, catalog or worker module', async () => {
    const { code } = await bundle(
      'workflows.js',
      [
        "const jobs = require('durable-jobs/workflow');",
        'exports.deadLetterWorkflow = jobs.deadLetterWorkflow;',
        'exports.touchWorkflow = async () => Object.keys(jobs).length;',
      ].join('\n'),
    );
    const modules = [...code.matchAll(/!\*\*\* (.+?) \*\*\*!/g)].map((m) => m[1]!);
    assert.ok(modules.some((m) => m.endsWith('dist/workflow-kit/index.js')), `the entry is in the bundle (modules: ${modules.length})`);
    const banned = modules.filter((m) => /node_modules\/zod\/|\/dist\/(jobs|workflows|activities|worker|client|testing|provision)\/|\/dist\/catalog\/(catalog|validate|prepare-job)\.js|\/dist\/shared\/(limits|config)\.js/.test(m));
    assert.deepEqual(banned, []);
  });

  it('fails to bundle workflow code that reaches a Node built-in, so the bundle above reached none', async () => {
    await assert.rejects(bundle('bad-workflows.js', "require('fs');\nexports.deadLetterWorkflow = require('durable-jobs/workflow').deadLetterWorkflow;\n"), /importing the following disallowed modules/);
    await assert.rejects(bundle('bad-workflows-node.js', "require('node:fs');\nexports.deadLetterWorkflow = require('durable-jobs/workflow').deadLetterWorkflow;\n"), /Webpack finished with errors/);
  });
});
