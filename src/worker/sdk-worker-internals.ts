// SDK internals of the worker side, apart from src/shared/sdk-internals.ts because workflow code
// loads that one (through the catalog) and must never load these.
// How the worker compiles its options: the sandbox-timeout test checks the option below reaches it.
export { compileWorkerOptions } from '@temporalio/worker/lib/worker-options';
// Reads a history from its JSON form (recorded fixtures), as the worker's replay does.
export { historyFromJSON } from '@temporalio/common/lib/proto-utils';
/**
 * How long one activation may run in the workflow sandbox before the SDK stops it: the worker's
 * `isolateExecutionTimeout`, 5 s by default and not in the public `WorkerOptions` type. On Node 20
 * a stop in the middle of a large activation aborts the whole worker process ("async hook stack has
 * become corrupted", temporalio/sdk-typescript#939): a DLQ activation of a few thousand signals on a
 * loaded 2-core machine outran 5 s (three runs of the DLQ capacity test of four). 30 s still stops a
 * workflow stuck in a loop, and a slow activation is retried by the server's task timeout first.
 */
export const sandboxTimeoutOption: { isolateExecutionTimeout: string } = { isolateExecutionTimeout: '30s' };
