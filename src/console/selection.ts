// Which dead-lettered entries a console page or action is about: one entry, a failure group, or a
// filtered selection (a type, optionally a group, failed after and before given times). Read from a
// page's query or a form, validated with errors naming the field, and carried on into the links
// and hidden fields of the next step, so a preview and the redrive it leads to name the same entries.
import { html } from 'hono/html';
import { InvalidOptionError, type FieldIssue } from '../shared/errors';
import type { DeadLetterSelection } from '../client/dead-letters';
import { timeText, type Markup } from './layout';

/** A console selection: always of one job type. */
export interface ConsoleSelection extends DeadLetterSelection {
  type: string;
}

const fields = ['type', 'fingerprint', 'id', 'failedAfter', 'failedBefore'] as const;

/** `2026-12-01T10:00`, `2026-12-01T10:00:00Z`, `…+02:00`: a time without a zone is UTC. */
const isoTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * The time a form field names, as the DLQ compares times: `toISOString()` (its entries' times are
 * in that form, and the filter compares them as text).
 */
function readTime(name: string, value: string, issues: FieldIssue[]): string | undefined {
  if (value === '') return undefined;
  const text = /(Z|[+-]\d{2}:\d{2})$/.test(value) ? value : `${value}Z`;
  const at = new Date(text);
  if (!isoTime.test(value) || Number.isNaN(at.getTime())) {
    issues.push({ path: name, message: `must be a time such as 2026-12-01T10:00:00Z (UTC when no zone is given), got ${JSON.stringify(value.slice(0, 40))}` });
    return undefined;
  }
  return at.toISOString();
}

/**
 * The selection in a query or form. `type` is required and must be one of `types` (the catalog's,
 * when the console has one); throws InvalidOptionError naming each bad field.
 */
export function readSelection(source: Record<string, unknown>, types: readonly string[] | undefined): ConsoleSelection {
  const text = (name: string) => {
    const v = source[name];
    return typeof v === 'string' ? v.trim() : '';
  };
  const issues: FieldIssue[] = [];
  const type = text('type');
  if (type === '') issues.push({ path: 'type', message: 'is required: the job type whose dead letters to act on' });
  else if (types && !types.includes(type)) issues.push({ path: 'type', message: `must be one of ${types.join(', ')}, got ${JSON.stringify(type.slice(0, 60))}` });
  const fingerprint = text('fingerprint');
  if (fingerprint !== '' && !/^[0-9a-f]{1,64}$/.test(fingerprint)) issues.push({ path: 'fingerprint', message: `must be a failure group's fingerprint (hex), got ${JSON.stringify(fingerprint.slice(0, 60))}` });
  const failedAfter = readTime('failedAfter', text('failedAfter'), issues);
  const failedBefore = readTime('failedBefore', text('failedBefore'), issues);
  if (failedAfter && failedBefore && failedAfter > failedBefore) issues.push({ path: 'failedAfter', message: `must not be later than failedBefore (${failedBefore})` });
  if (issues.length > 0) throw new InvalidOptionError(issues);
  const selection: ConsoleSelection = { type };
  if (fingerprint) selection.fingerprint = fingerprint;
  if (text('id')) selection.id = text('id');
  if (failedAfter) selection.failedAfter = failedAfter;
  if (failedBefore) selection.failedBefore = failedBefore;
  return selection;
}

/** The selection as a URL query (without `?`). */
export function selectionQuery(selection: ConsoleSelection): string {
  const query = new URLSearchParams();
  for (const name of fields) if (selection[name] !== undefined) query.set(name, selection[name]!);
  return query.toString();
}

/** The selection as a form's hidden fields. */
export function selectionInputs(selection: ConsoleSelection): Markup {
  return html`${fields.filter((f) => selection[f] !== undefined).map((f) => html`<input type="hidden" name="${f}" value="${selection[f]}">`)}`;
}

/** The selection in words, e.g. `process-payment jobs of group 3f2a9c01b2d4 that failed before 2026-…`. */
export function describeSelection(selection: ConsoleSelection): string {
  if (selection.id !== undefined) return `${selection.type} job ${selection.id}`;
  const parts = [`${selection.type} jobs`];
  if (selection.fingerprint) parts.push(`of group ${selection.fingerprint}`);
  if (selection.failedAfter && selection.failedBefore) parts.push(`that failed between ${timeText(selection.failedAfter)} and ${timeText(selection.failedBefore)}`);
  else if (selection.failedAfter) parts.push(`that failed after ${timeText(selection.failedAfter)}`);
  else if (selection.failedBefore) parts.push(`that failed before ${timeText(selection.failedBefore)}`);
  return parts.join(' ');
}
