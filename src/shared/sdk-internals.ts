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
