import assert from 'node:assert/strict';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { bundleJobWorkflows } from '../../src/testing/test-worker';
import { libraryWorkflowTypes } from '../../src/worker/workflow-entry';
import * as builtInWorkflows from '../../src/workflows';
import { fixtureFiles, historyOf, limitsWorkflowTypes, replayBundles, workflowTypeOf } from '../helpers/replay-fixtures';

// Histories recorded from a real dev server (`temporal workflow show -o json`: record.ts and
// record-flow.ts in test/fixtures/histories). Replaying them against today's workflow code fails
// if a change breaks determinism for jobs already in flight.

/** The paths a job takes through the library that are not a workflow of their own, by fixture name. */
const requiredScenarios = {
  'send-email-paused': 'a job that waited at its type’s pause gate',
  'tenant-work-slot': 'a job that held a per-key concurrency slot',
};

describe('workflow replay of recorded histories', () => {
  let bundleFor: (file: string) => WorkflowBundleWithSourceMap;
  before(async () => {
    bundleFor = await replayBundles((workflowsPath) => bundleJobWorkflows(workflowsPath));
  });

  it('holds a history of every workflow a worker bundles, and of the pause gate and a concurrency slot', () => {
    const recorded = new Set(fixtureFiles.map(workflowTypeOf));
    const bundled = [...Object.keys(builtInWorkflows), ...libraryWorkflowTypes, ...limitsWorkflowTypes];
    assert.deepEqual(bundled.filter((type) => !recorded.has(type)), [], 'workflow types without a recorded history (record.ts, record-flow.ts)');
    for (const [name, what] of Object.entries(requiredScenarios)) assert.ok(fixtureFiles.includes(`${name}.json`), `${name}.json: ${what}`);
    assert.deepEqual(fixtureFiles.filter((f) => workflowTypeOf(f) === ''), [], 'every fixture names its workflow type');
  });

  for (const file of fixtureFiles) {
    it(`replays ${file} (${workflowTypeOf(file)}) without nondeterminism`, async () => {
      await Worker.runReplayHistory({ workflowBundle: bundleFor(file) }, historyOf(file), file);
    });
  }

  // A protocol-3 job (no lifecycle marker of its own) that a worker of an earlier release began:
  // its history has the marker, then the pause gate's or the concurrency slot's.
  for (const file of ['send-email-paused.json', 'tenant-work-slot.json']) {
    it(`replays ${file} with its start memo read as protocol 3: the lifecycle marker an earlier worker wrote is consumed`, async () => {
      const history = structuredClone(historyOf(file)) as { events: { workflowExecutionStartedEventAttributes?: { memo?: { fields?: Record<string, { data?: string }> } } }[] };
      const memo = history.events[0]?.workflowExecutionStartedEventAttributes?.memo?.fields?.jobProtocol;
      assert.ok(memo?.data !== undefined, `${file} has a jobProtocol memo`);
      assert.equal(Buffer.from(memo.data, 'base64').toString(), '2');
      memo.data = Buffer.from('3').toString('base64');
      await Worker.runReplayHistory({ workflowBundle: bundleFor(file) }, history, `${file} as protocol 3`);
    });
  }
});
