import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { bundleWorkflows } from '../helpers/env';

// Histories recorded from a real dev server (`temporal workflow show -o json`). Replaying them
// against today's workflow code fails if a change breaks determinism for jobs already in flight.
const dir = path.join(__dirname, '../fixtures/histories');

describe('workflow replay of recorded histories', () => {
  let bundle: WorkflowBundleWithSourceMap;
  before(async () => {
    bundle = await bundleWorkflows();
  });

  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  it('has recorded histories to replay', () => assert.ok(files.length >= 3));

  for (const file of files) {
    it(`replays ${file} without nondeterminism`, async () => {
      const history: unknown = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
      await Worker.runReplayHistory({ workflowBundle: bundle }, history, file);
    });
  }
});
