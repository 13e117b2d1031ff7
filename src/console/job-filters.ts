// The jobs list's filters, read from the page's query string: type, status, ID prefix, a creation
// time range and the page cursor. Every bad value is reported naming its field, and the values
// as given are kept so that the form and the "Next page" link carry them on.
import { listableStatuses, type ListableStatus, type ListJobsOptions } from '../client/job-list';
import type { FieldIssue } from '../shared/errors';

/** The filters as the query string gives them, for the form and for links. */
export interface JobFilterValues {
  type: string;
  status: string;
  /** As given, spaces included: an ID may start with one. */
  prefix: string;
  from: string;
  to: string;
}

/** What {@link parseJobFilters} makes of a query string. */
export interface ParsedJobFilters {
  values: JobFilterValues;
  /** The filters for `listJobsPage`; meaningful only when `issues` is empty. */
  options: Omit<ListJobsOptions, 'limit'>;
  /** The `cursor` parameter as given (sealed by page-cursor.ts); unset on the first page. */
  cursor?: string;
  /** Each bad value, naming its field. */
  issues: FieldIssue[];
}

/** Longest ID prefix: Temporal's default limit on a workflow ID. */
const maxPrefixLength = 1000;

/** Longest cursor accepted, in characters. */
const maxCursorLength = 8192;

/** What the list says of a cursor it cannot use. */
export const badCursor: FieldIssue = { path: 'cursor', message: 'is not a page cursor this list gave for these filters: start again from the first page' };

/** A date, or a date-time with an optional offset (UTC without one), `T` or a space between. */
const timePattern = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** A time as the form takes it (a date means its midnight, UTC); `undefined` if it is not one. */
export function parseFilterTime(text: string): Date | undefined {
  const match = timePattern.exec(text);
  if (!match) return undefined;
  const [, date, clock, offset] = match;
  // Date takes 2026-02-30 as 2 March: the day must exist as written.
  const day = new Date(`${date}T00:00Z`);
  if (Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== date) return undefined;
  const parsed = new Date(`${date}T${clock ?? '00:00'}${offset ?? 'Z'}`);
  return Number.isNaN(parsed.getTime()) ? undefined : parsed;
}

/**
 * Reads the filters from a query string. `types` are the catalog's job types (the form's choices);
 * without a catalog any type is taken.
 */
export function parseJobFilters(query: Record<string, string | undefined>, types: readonly string[] | undefined): ParsedJobFilters {
  const value = (name: string) => (query[name] ?? '').trim();
  const values: JobFilterValues = { type: value('type'), status: value('status'), prefix: query.prefix ?? '', from: value('from'), to: value('to') };
  const issues: FieldIssue[] = [];
  const options: Omit<ListJobsOptions, 'limit'> = {};
  if (values.type) {
    if (types && !types.includes(values.type)) issues.push({ path: 'type', message: `must be one of ${types.join(', ')}` });
    else options.type = values.type;
  }
  if (values.status) {
    if (!(listableStatuses as readonly string[]).includes(values.status)) issues.push({ path: 'status', message: `must be one of ${listableStatuses.join(', ')}` });
    else options.status = values.status as ListableStatus;
  }
  if (values.prefix) {
    if (values.prefix.length > maxPrefixLength) issues.push({ path: 'prefix', message: `must be at most ${maxPrefixLength} characters` });
    else options.idPrefix = values.prefix;
  }
  for (const [field, key] of [['from', 'createdFrom'], ['to', 'createdBefore']] as const) {
    if (!values[field]) continue;
    const time = parseFilterTime(values[field]);
    if (time) options[key] = time;
    else issues.push({ path: field, message: 'must be a date or date-time, e.g. 2026-01-01 or 2026-01-01T09:30:00Z (UTC unless it has an offset)' });
  }
  if (options.createdFrom && options.createdBefore && options.createdBefore <= options.createdFrom) issues.push({ path: 'to', message: 'must be after from' });
  const cursor = value('cursor') || undefined;
  if (cursor !== undefined && (cursor.length > maxCursorLength || !/^[A-Za-z0-9_-]+$/.test(cursor))) issues.push(badCursor);
  return { values, options, cursor, issues };
}

/** The query string of the list with these filters (empty ones left out) and, for a later page, its cursor. */
export function filterSearch(values: JobFilterValues, cursor?: string): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v) params.set(k, v);
  if (cursor) params.set('cursor', cursor);
  const text = params.toString();
  return text ? `?${text}` : '';
}
