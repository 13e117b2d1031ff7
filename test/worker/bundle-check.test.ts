import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleJobWorkflows } from '../../src/testing';
import { heavyModulesIn } from '../../src/worker/bundle-check';
import { repoRoot } from '../helpers/env';

// What the worker warns about at start: a workflow bundle that carries zod, as a user's workflow
// that imports its payload schema would. The built-in bundle carries none.
describe('workflow bundle check (heavyModulesIn)', function () {
  this.timeout(120_000);

  it('finds none in the built-in workflows', async () => {
    const bundle = await bundleJobWorkflows(require.resolve('../../src/workflows'));
    assert.deepEqual(heavyModulesIn(bundle.code), []);
  });

  it('names zod in a workflows module that imports a schema at the top', async () => {
    // Inside the repository, so that the bundler resolves zod and the library from its node_modules.
    const dir = await mkdtemp(path.join(repoRoot, 'test-artifacts-bundle-'));
    const file = path.join(dir, 'workflows.ts');
    await writeFile(
      file,
      [
        "import { z } from 'zod';",
        `export { deadLetterWorkflow } from '${path.join(repoRoot, 'src/workflow-kit').replace(/\\/g, '/')}';`,
        'const payload = z.object({ n: z.number() });',
        'export async function countWorkflow(input: unknown): Promise<number> { return payload.parse(input).n; }',
        '',
      ].join('\n'),
    );
    try {
      assert.deepEqual(heavyModulesIn((await bundleJobWorkflows(file)).code), ['zod']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
