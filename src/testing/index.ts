// The test kit (`durable-jobs/testing`): a time-skipping (or real) Temporal with the library's DLQ,
// interceptors and the user's catalog, found or provisioned as `npm test` does.
export { startJobTestKit, type InjectedFailure, type JobTestKit, type JobTestKitOptions } from './kit';
export { startDevServerEnv, startTimeSkippingEnv, type TestEnvOptions } from './environment';
export { bundleJobWorkflows, createJobTestWorker, type JobTestWorker, type JobTestWorkerOptions } from './test-worker';
export { asJobStep, runStep, type StepRunOptions } from './run-step';
