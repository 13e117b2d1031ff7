// The `ours-activity` scenario's job type, defined as a user defines one in their own codebase
// (README, "Use it in your project"): plain data from the workflow-safe entry point, its payload
// schema in a module of its own that workflow code imports as a type only.
import { ErrorType, defineJob, retrySchedule } from '../../src/workflow-kit';
import type { GreetPayload } from './greet.payload';

/**
 * `greet`: the samples' hello-world as a job, one step in one regular activity (the SDK's default
 * kind, eagerly dispatched by the `npm start` server), so that it compares with `greetWorkflow`.
 */
export const greetJob = defineJob({
  type: 'greet',
  workflowType: 'greetJobWorkflow',
  description: 'Greet someone (the bench\'s user-defined job type with one regular activity)',
  presets: {
    greet: {
      retry: retrySchedule('1s', '5s', '30s'),
      nonRetryableErrorTypes: [ErrorType.InvalidPayload],
      timeouts: { startToClose: '1m' },
    },
  },
  mainPreset: 'greet',
  steps: ['greet'],
  summary: (p: GreetPayload) => `greet ${p.name}`,
});
