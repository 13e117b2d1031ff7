import assert from 'node:assert/strict';
import { DefaultLogger } from '@temporalio/worker';
import { noopMetricMeter } from '@temporalio/common';
import { compileWorkerOptions, sandboxTimeoutOption } from '../../src/worker/sdk-worker-internals';

// The SDK reads the sandbox's timeout from an option its public type leaves out: this checks that
// the SDK in use still takes it (an upgrade that drops it fails here, not in a loaded worker).
describe('the workflow sandbox timeout the workers set', () => {
  it('reaches the SDK: 30 s instead of its 5 s', () => {
    const compiled = (opts: object) => compileWorkerOptions({ taskQueue: 'q', workflowBundle: { code: '' }, ...opts }, new DefaultLogger('ERROR', () => {}), noopMetricMeter);
    assert.equal(compiled({}).isolateExecutionTimeoutMs, 5000, "the SDK's default");
    assert.equal(compiled(sandboxTimeoutOption).isolateExecutionTimeoutMs, 30_000);
  });
});
