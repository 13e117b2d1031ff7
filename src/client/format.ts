import type { JobRecord } from './job-record';

/** A job record as aligned `field: value` lines for people; `--json` prints the record itself. */
export function formatJobRecord(record: JobRecord): string {
  const rows: [string, string | undefined][] = [
    ['id', record.id],
    ['type', record.type],
    ['status', record.status],
    ['attempts', `${record.attempts}/${record.maxAttempts}`],
    ['createdAt', record.createdAt],
    ['processedAt', record.processedAt],
    ['failedAt', record.failedAt],
    ['error', record.error ? (record.error.type ? `${record.error.type}: ${record.error.message}` : record.error.message) : undefined],
    ['payload', JSON.stringify(record.payload)],
  ];
  return rows
    .filter((row): row is [string, string] => row[1] !== undefined)
    .map(([k, v]) => `${`${k}:`.padEnd(13)}${v}`)
    .join('\n');
}
