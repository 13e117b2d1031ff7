// The test kit (`durable-jobs/testing`): a time-skipping (or real) Temporal with the library's DLQ,
// interceptors and the user's catalog, found or provisioned as `npm test` does. Its package
// (@temporalio/testing) is an optional peer, a team's devDependency: checked first.
import './installed';
export { startJobTestKit, type InjectedFailure, type JobTestKit, type JobTestKitOptions } from './kit';
export { startDevServerEnv, startTimeSkippingEnv, type TestEnvOptions } from './environment';
export { bundleJobWorkflows, createJobTestWorker, type JobTestWorker, type JobTestWorkerOptions } from './test-worker';
export { asJobStep, runStep, type StepRunOptions } from './run-step';
