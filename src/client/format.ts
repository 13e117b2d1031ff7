import type { JobError, JobRecord } from './job-record';

/** A job error as `type: message`, or the message alone when it has no type. */
export function formatJobError(error: JobError): string {
  return error.type ? `${error.type}: ${error.message}` : error.message;
}

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
    ['error', record.error ? formatJobError(record.error) : undefined],
    ['payload', JSON.stringify(record.payload)],
  ];
  return rows
    .filter((row): row is [string, string] => row[1] !== undefined)
    .map(([k, v]) => `${`${k}:`.padEnd(13)}${v}`)
    .join('\n');
}
