// The `sync-data` page size bounds: plain data, shared by the definition (the workflow's check of a
// `setPageSize` signal), the payload schema and the sync-source activity.

/** Largest page a `sync-data` job asks its source for. */
export const maxSyncPageSize = 1000;

/**
 * Whether `value` is a page size: an integer from 1 to {@link maxSyncPageSize}. The workflow's
 * check of a `setPageSize` signal; the payload schema's `syncPageSize` says the same with messages.
 */
export function isSyncPageSize(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= maxSyncPageSize;
}
