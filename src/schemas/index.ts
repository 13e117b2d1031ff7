// The schemas entry point (`durable-jobs/schemas`, also re-exported by `durable-jobs`): building
// blocks for payload schemas (zod): bounded header-safe text, cross-field checks, the job-ID
// alphabet and limits. Not for workflow code (it loads zod); payload schema modules import from
// here rather than from `durable-jobs`, which loads the SDK's gRPC client.
export { headerText, identifier, whenValid, jobIdPattern, maxJobIdLength, maxPayloadBytes, maxDelayMs } from '../shared/limits';
