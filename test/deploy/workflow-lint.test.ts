import assert from 'node:assert/strict';
import path from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { repoRoot } from '../helpers/env';

import { builtinModules } from 'node:module';
import { nodeBuiltins, workflowCodeRules } from '../../src/workflow-kit/lint-rules';

// The shipped lint rules for a team's workflow code (`workflowCodeRules` from durable-jobs/workflow), with their defaults,
// on a job definition's imports as a project writes them: with and without nodenext's `.js`.
describe('the workflow code lint rules (workflowCodeRules)', function () {
  this.timeout(60_000);
  const eslint = new ESLint({
    cwd: repoRoot,
    overrideConfigFile: true,
    overrideConfig: [...(tseslint.configs.base ? [tseslint.configs.base] : []), workflowCodeRules({ files: ['**/*.ts'] })] as ESLint.Options['overrideConfig'],
  });
  const flagged = async (line: string): Promise<boolean> => {
    const [result] = await eslint.lintText(`${line}\nexport const used = x;\n`, { filePath: path.join(repoRoot, 'probe/src/jobs/probe.ts') });
    return result!.messages.some((m) => m.ruleId === '@typescript-eslint/no-restricted-imports');
  };

  for (const specifier of ['./charge.payload', './charge.payload.js', '../payloads/charge', '../payloads/charge.js', '../catalog', '../catalog.js', '../activities', '../activities.js', 'zod', 'durable-jobs', 'durable-jobs/catalog', 'durable-jobs/console', 'durable-jobs/worker', 'durable-jobs/activity', 'node:fs', 'node:fs/promises', 'node:sqlite', 'fs', 'worker_threads']) {
    it(`refuses ${specifier} in a definition`, async () => {
      assert.ok(await flagged(`import { x } from '${specifier}';`), specifier);
    });
  }
  for (const specifier of ['durable-jobs/job', 'durable-jobs/workflow', '@temporalio/workflow', './charge-subscription']) {
    it(`allows ${specifier}`, async () => {
      assert.equal(await flagged(`import { x } from '${specifier}';`), false, specifier);
    });
  }
  it('names every built-in module of this Node (the bare names; `node:` ones by pattern)', () => {
    assert.deepEqual(builtinModules.filter((name) => !name.startsWith('node:') && !nodeBuiltins.includes(name)), []);
  });
  it('allows a payload type imported as a type only', async () => {
    assert.equal(await flagged(`import type { x } from './charge.payload.js';`), false);
  });
});
