import type { AuditRecord, DeadLetterEntry } from '../workflow-kit/dead-letter-entries';
import type { JobError, JobRecord } from './job-record';
import type { RedrivePlan } from './redrive-plan';

/** A job error as `type: message`, or the message alone when it has no type. */
export function formatJobError(error: JobError): string {
  const text = error.type ? `${error.type}: ${error.message}` : error.message;
  return error.stall ? `${text} (stalled: ${stallText[error.stall]})` : text;
}

const stallText: Record<NonNullable<JobError['stall']>, string> = {
  'heartbeat-timeout': 'no heartbeat in time; the worker died or hung mid-attempt',
  'start-to-close-timeout': 'the attempt ran past its start-to-close timeout; the worker died, hung or was too slow',
  'worker-shutdown': 'the worker shut down before the attempt finished',
};

/** A job record as aligned `field: value` lines for people; `--json` prints the record itself. */
export function formatJobRecord(record: JobRecord): string {
  const rows: [string, string | undefined][] = [
    ['id', record.id],
    ['type', record.type],
    ['status', record.status],
    ['attempts', `${record.attempts}/${record.maxAttempts}`],
    ['step', record.step && record.steps ? `${record.step} (${record.steps.indexOf(record.step) + 1} of ${record.steps.length}: ${record.steps.join(' → ')})` : record.step],
    ['progress', record.progress ? `${record.progress.done}${record.progress.total === undefined ? '' : `/${record.progress.total}`}${record.progress.unit ? ` ${record.progress.unit}` : ''}` : undefined],
    ['compensation', record.compensation ? `${record.compensation.status}${record.compensation.undone.length ? `, undid ${record.compensation.undone.join(', ')}` : ''}` : undefined],
    ['run', record.run !== undefined && record.run > 1 ? String(record.run) : undefined],
    ['fairness', record.fairness ? `${sanitizeForTerminal(record.fairness.key)}${record.fairness.weight === undefined ? '' : ` (weight ${record.fairness.weight})`}` : undefined],
    ['waiting', record.configWait ? `for a setting since ${record.configWait.since} (costs no attempt); next check ${record.configWait.nextCheckAt}` : undefined],
    ['waiting', record.limitWait ? `for a slot since ${record.limitWait.since}: at most ${record.limitWait.limit} run at once for ${JSON.stringify(record.limitWait.key)} (concurrency limit)` : undefined],
    ['paused', record.paused ? `since ${record.paused.since}${record.paused.by ? ` by ${record.paused.by}` : ''}${record.paused.reason ? ` (${record.paused.reason})` : ''}: no attempt starts until jobctl resume ${record.type}` : undefined],
    ['debounce', record.debounce ? formatDebounce(record.debounce) : undefined],
    ['workers', record.workersNotAnswering ? 'not answering: no worker answered the state query within 1 s, so step and progress are not shown; the rest is what the server holds' : undefined],
    ['createdAt', record.createdAt],
    ['processedAt', record.processedAt],
    ['failedAt', record.failedAt],
    ['error', record.error ? formatJobError(record.error) : undefined],
    ['payload', JSON.stringify(record.payload)],
  ];
  return rows
    .filter((row): row is [string, string] => row[1] !== undefined)
    .map(([k, v]) => `${`${k}:`.padEnd(Math.max(13, k.length + 2))}${v}`)
    .join('\n');
}

function formatDebounce(debounce: NonNullable<JobRecord['debounce']>): string {
  if (debounce.closed) return 'window closed, the job is starting';
  if (debounce.firesAt === undefined) return 'waiting for its window to close (the debouncer did not answer)';
  return `waiting: ${debounce.enqueues} enqueue(s), starts at ${debounce.firesAt} unless more come`;
}

/**
 * Text safe to print to a terminal: control characters (escape sequences among them) and bidi
 * overrides are shown as `\u…` escapes instead of acting on the terminal.
 */
export function sanitizeForTerminal(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Rows as aligned columns under a header, for people; `--json` prints the rows themselves. */
export function formatTable<T extends object>(rows: T[], columns: (keyof T & string)[]): string {
  if (rows.length === 0) return '(none)';
  const cells = rows.map((r) => columns.map((c) => sanitizeForTerminal(String(r[c] ?? ''))));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(columns), ...cells.map(line)].join('\n');
}

/** One audit record as a line: `<at>  <action>  by <who>: <result> (<detail>) patch <json>`. */
export function formatAuditRecord(record: AuditRecord): string {
  const by = record.by === undefined ? '' : `by ${record.by}: `;
  const detail = record.detail === undefined ? '' : ` (${record.detail})`;
  const patch = record.patch === undefined ? '' : ` patch ${JSON.stringify(record.patch)}`;
  return sanitizeForTerminal(`${record.at}  ${record.action.padEnd(13)}  ${by}${record.result}${detail}${patch}`);
}

/** A DLQ entry as aligned `field: value` lines and its audit trail, one line per operation; `--json` prints the entry itself. */
export function formatDeadLetterEntry(entry: DeadLetterEntry): string {
  const rows: [string, string | undefined][] = [
    ['id', entry.id],
    ['type', entry.type],
    ['status', entry.status],
    ['attempts', String(entry.attempts)],
    ['failures', String(entry.failures)],
    ['createdAt', entry.createdAt],
    ['firstFailedAt', entry.firstFailedAt],
    ['lastFailedAt', entry.lastFailedAt],
    ['lastRunId', entry.lastRunId],
    ['error', formatJobError(entry.error)],
    ['fingerprint', `${entry.fingerprint} (${entry.fingerprintText})`],
    // The failed run's trace, to search a trace backend by (traceparent: 00-<trace ID>-<span ID>-<flags>).
    ['traceId', entry.traceContext?.traceparent?.split('-')[1]],
    ['payload', JSON.stringify(entry.payload)],
  ];
  const fields = rows
    .filter((row): row is [string, string] => row[1] !== undefined)
    .map(([k, v]) => sanitizeForTerminal(`${`${k}:`.padEnd(15)}${v}`));
  return [...fields, 'audit:', ...entry.audit.map((r) => `  ${formatAuditRecord(r)}`)].join('\n');
}

/**
 * A redrive plan as lines: the job, then each step and what the redrive does to it; a step done and
 * not undone in capitals, since it takes effect a second time.
 */
export function formatRedrivePlan(plan: RedrivePlan): string {
  const head = `${plan.id}${plan.execution ? ` (failed execution ${plan.execution})` : ''}`;
  const width = Math.max(0, ...plan.steps.map((s) => s.step.length));
  const steps = plan.steps.map((s) => `  ${s.step.padEnd(width)}  ${s.fate === 'done-not-undone' ? `${s.effect.toUpperCase()} (a double effect)` : s.effect}`);
  return sanitizeForTerminal([head, ...steps, ...(plan.problem ? [`  (${plan.problem})`] : [])].join('\n'));
}
