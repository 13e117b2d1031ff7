// `durable-jobs/client`, deprecated since 0.3 (removed in 0.4): use `durable-jobs`. It exports what
// 0.2's `durable-jobs` and `durable-jobs/client` did, including the names that now live in one
// other entry point each: the catalog's (`durable-jobs/catalog`), the definitions', retry shapes'
// and `ErrorType` (`durable-jobs/workflow`), `describe` (now `describeError`) and `formatIssues`
// (`durable-jobs/activity`).
export * from '../client/index';
export * from '../catalog/index';
/** @deprecated Since 0.3: `ErrorType` from `durable-jobs/workflow`, `describeError` and `formatIssues` from `durable-jobs/activity`. */
export { ErrorType, describe, formatIssues, type NamespacedErrorType } from '../shared/errors';
