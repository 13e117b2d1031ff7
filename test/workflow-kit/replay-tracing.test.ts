import { Resource } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry';
import { bundleWorkflowCode, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { quietBundlerLogger } from '../../src/testing/test-worker';
import { withLibraryWorkflows } from '../../src/worker/workflow-entry';
import { fixtureFiles, historyOf, replayBundles } from '../helpers/replay-fixtures';

// The recorded histories (test/fixtures/histories, recorded without tracing) replay with the
// Temporal SDK's OpenTelemetry workflow interceptors installed, as a tracing worker bundles them:
// the interceptors add headers and spans, never a command, so turning tracing on or off never
// breaks a job in flight. replay.test.ts replays the same files with tracing off.
describe('workflow replay of recorded histories with the OpenTelemetry interceptors', () => {
  let bundleFor: (file: string) => WorkflowBundleWithSourceMap;
  before(async () => {
    bundleFor = await replayBundles((workflowsPath) =>
      withLibraryWorkflows(workflowsPath, (entry) =>
        bundleWorkflowCode({
          ...entry,
          workflowInterceptorModules: [
            require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
            require.resolve('../../src/workflow-kit/trace-log-attributes'),
            require.resolve('../../src/workflow-kit/interceptors'),
          ],
          logger: quietBundlerLogger,
        }),
      ),
    );
  });

  for (const file of fixtureFiles) {
    it(`replays ${file} without nondeterminism, tracing on`, async () => {
      const sinks = { exporter: makeWorkflowExporter(new SimpleSpanProcessor(new InMemorySpanExporter()), new Resource({ 'service.name': 'replay' })) };
      await Worker.runReplayHistory({ workflowBundle: bundleFor(file), sinks }, historyOf(file), file);
    });
  }
});
