// The SDK internals this package uses, in one place so that an SDK upgrade is checked here.
// `msToNumber` and `optionalTsToMs` are the SDK's own parsers for the Duration strings its options
// accept ('30s', '5m') and for protobuf timestamps. Using the same parser keeps our validation in
// step with what the SDK will accept; their public re-exports are marked "deprecated, internal use
// only" and no public replacement exists.
export { msToNumber, optionalTsToMs } from '@temporalio/common/lib/time';
