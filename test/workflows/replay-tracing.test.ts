import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Resource } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry';
import { bundleWorkflowCode, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { quietBundlerLogger } from '../../src/testing/test-worker';

// The recorded histories (test/fixtures/histories, recorded without tracing) replay with the
// Temporal SDK's OpenTelemetry workflow interceptors installed, as a tracing worker bundles them:
// the interceptors add headers and spans, never a command, so turning tracing on or off never
// breaks a job in flight. replay.test.ts replays the same files with tracing off.
const dir = path.join(__dirname, '../fixtures/histories');

describe('workflow replay of recorded histories with the OpenTelemetry interceptors', () => {
  let bundle: WorkflowBundleWithSourceMap;
  before(async () => {
    bundle = await bundleWorkflowCode({
      workflowsPath: require.resolve('../../src/workflows'),
      workflowInterceptorModules: [
        require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
        require.resolve('../../src/workflow/trace-log-attributes'),
        require.resolve('../../src/workflow/interceptors'),
      ],
      logger: quietBundlerLogger,
    });
  });

  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  it('has recorded histories to replay', () => assert.ok(files.length >= 3));

  for (const file of files) {
    it(`replays ${file} without nondeterminism, tracing on`, async () => {
      const history: unknown = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
      const sinks = { exporter: makeWorkflowExporter(new SimpleSpanProcessor(new InMemorySpanExporter()), new Resource({ 'service.name': 'replay' })) };
      await Worker.runReplayHistory({ workflowBundle: bundle, sinks }, history, file);
    });
  }
});
