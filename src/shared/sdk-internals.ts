// The SDK internals this package uses, in one place so that an SDK upgrade is checked here.
// `msToNumber` and `optionalTsToMs` are the SDK's own parsers for the Duration strings its options
// accept ('30s', '5m') and for protobuf timestamps. Using the same parser keeps our validation in
// step with what the SDK will accept; their public re-exports are marked "deprecated, internal use
// only" and no public replacement exists.
export { msToNumber, optionalTsToMs, optionalTsToDate, requiredTsToDate } from '@temporalio/common/lib/time';
// How the SDK's client types a visibility row's search attributes (jobctl's HTTP reads type theirs alike).
export { decodeTypedSearchAttributes } from '@temporalio/common/lib/converter/payload-search-attributes';
// The same classes and functions as the package's index exports, from the modules that define them:
// the index loads every converter (protobufjs, nexus-rpc) before jobctl's first network call.
export { ApplicationFailure } from '@temporalio/common/lib/failure';
export { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common/lib/search-attributes';
export { defaultPayloadConverter } from '@temporalio/common/lib/converter/payload-converter';
// How the SDK's client encodes a start's search attributes and priority (jobctl's HTTP enqueue sends the same).
export { encodeUnifiedSearchAttributes } from '@temporalio/common/lib/converter/payload-search-attributes';
export { compilePriority } from '@temporalio/common/lib/priority';
/**
 * How long one activation may run in the workflow sandbox before the SDK stops it: the worker's
 * `isolateExecutionTimeout`, 5 s by default and not in the public `WorkerOptions` type. On Node 20
 * a stop in the middle of a large activation aborts the whole worker process ("async hook stack has
 * become corrupted", temporalio/sdk-typescript#939): a DLQ activation of a few thousand signals on a
 * loaded 2-core machine outran 5 s (three runs of the DLQ capacity test of four). 30 s still stops a
 * workflow stuck in a loop, and a slow activation is retried by the server's task timeout first.
 */
export const sandboxTimeoutOption: { isolateExecutionTimeout: string } = { isolateExecutionTimeout: '30s' };
