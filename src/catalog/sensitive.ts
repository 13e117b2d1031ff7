// Sensitive payload fields (a webhook's signing key, a source's token): a job type names them in
// its definition (`sensitive: ['token']`), plain data, so workflow code stays free of zod. Wherever
// a payload is shown (jobctl, the console, a job record, a DLQ entry, an audit record's patch) they
// read as a fixed mask, and a failure message that quotes one has it replaced. Pure JS: any layer may use it.
import type { CatalogProblem } from './preset-problems';

/** What a sensitive field shows instead of its value. */
export const sensitiveMask = '[sensitive]';

/** Memo key of a job's sensitive paths, set at its start, so a reader without the catalog masks them too. A stored contract. */
export const sensitiveMemoKey = 'sensitive';

/** A path: field names joined by dots (`token`, `auth.secret`); through an array, it applies to each element. */
const pathPattern = /^[A-Za-z_$][\w$-]*(\.[A-Za-z_$][\w$-]*)*$/;

/** Problems of a definition's `sensitive` list: each path named, against the payload schema's top-level keys when it has them. */
export function sensitiveProblems(paths: unknown, topLevelKeys: readonly string[] | undefined, at: string): CatalogProblem[] {
  if (paths === undefined) return [];
  if (!Array.isArray(paths)) return [{ path: `${at}.sensitive`, message: 'must be a list of payload field paths, e.g. ["token", "auth.secret"]' }];
  return paths.flatMap((p, i): CatalogProblem[] => {
    if (typeof p !== 'string' || !pathPattern.test(p)) return [{ path: `${at}.sensitive.${i}`, message: `must be a payload field path such as token or auth.secret, got ${JSON.stringify(p)}` }];
    const top = p.split('.')[0]!;
    if (topLevelKeys && !topLevelKeys.includes(top)) return [{ path: `${at}.sensitive.${i}`, message: `names ${top}, which the payload schema has no field of (fields: ${topLevelKeys.join(', ')})` }];
    return [];
  });
}

/** A copy of `value` with the fields at `paths` replaced by {@link sensitiveMask} (where present). */
export function maskSensitive<T>(value: T, paths: readonly string[] | undefined): T {
  if (!paths || paths.length === 0 || value === null || typeof value !== 'object') return value;
  // Payloads are JSON: a JSON copy is a deep one (and deterministic, should workflow code mask).
  const copy = JSON.parse(JSON.stringify(value)) as unknown;
  for (const p of paths) maskAt(copy, p.split('.'));
  return copy as T;
}

function maskAt(node: unknown, segments: string[]): void {
  if (Array.isArray(node)) {
    for (const item of node) maskAt(item, segments);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const [head, ...rest] = segments;
  const record = node as Record<string, unknown>;
  if (!head || !Object.prototype.hasOwnProperty.call(record, head)) return;
  if (rest.length === 0) record[head] = sensitiveMask;
  else maskAt(record[head], rest);
}

/** The values at `paths` that a message could quote: strings and numbers, 4 characters or more. */
export function sensitiveValues(value: unknown, paths: readonly string[] | undefined): string[] {
  const found: string[] = [];
  const collect = (node: unknown, segments: string[]): void => {
    if (Array.isArray(node)) return node.forEach((item) => collect(item, segments));
    if (node === null || typeof node !== 'object') return;
    const [head, ...rest] = segments;
    const child = head === undefined ? undefined : (node as Record<string, unknown>)[head];
    if (rest.length > 0) return collect(child, rest);
    if (typeof child === 'string' || typeof child === 'number') found.push(String(child));
    else if (child !== undefined && child !== null) found.push(JSON.stringify(child));
  };
  for (const p of paths ?? []) collect(value, p.split('.'));
  return found.filter((v) => v.length >= 4);
}

/** A message cut short may end in the first characters of a value: this many or more are masked. */
const cutPrefixMin = 6;

/**
 * The forms in which a message may quote a value: as is, JSON-escaped, URL-encoded, base64 (a
 * Basic header) and base64url. Matched without regard to case.
 */
function quotedForms(v: string): string[] {
  const json = JSON.stringify(v).slice(1, -1);
  const base64 = Buffer.from(v, 'utf8').toString('base64');
  return [...new Set([v, json, encodeURIComponent(v), base64, base64.replace(/=+$/, ''), Buffer.from(v, 'utf8').toString('base64url')])];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * `text` with every quote of the payload's sensitive values replaced by {@link sensitiveMask}: in
 * any of the forms of {@link quotedForms}, in any case, and a value's first characters where the
 * text ends on them (a message cut at a length limit).
 */
export function scrubSensitive(text: string, payload: unknown, paths: readonly string[] | undefined): string {
  const values = sensitiveValues(payload, paths);
  if (values.length === 0) return text;
  const forms = [...new Set(values.flatMap(quotedForms))].sort((a, b) => b.length - a.length);
  let out = text.replace(new RegExp(forms.map(escapeRegExp).join('|'), 'gi'), sensitiveMask);
  for (const v of values) out = maskCutPrefix(out, v);
  return out;
}

/** `text` with its end masked where it is the first {@link cutPrefixMin} or more characters of `v` (before an ellipsis). */
function maskCutPrefix(text: string, v: string): string {
  const end = /(…|\.\.\.)?\s*$/.exec(text)!;
  const body = text.slice(0, end.index).toLowerCase();
  for (let n = Math.min(v.length - 1, body.length); n >= cutPrefixMin; n--) {
    if (body.endsWith(v.slice(0, n).toLowerCase())) return `${text.slice(0, end.index - n)}${sensitiveMask}${end[1] ?? ''}`;
  }
  return text;
}

/**
 * Scrubs, in place, an error and each of its causes: their messages go to log lines, the job's
 * history and its DLQ entry. `input` is an activity's argument, which holds the payload
 * (`{ payload }`) or is the payload's fields themselves.
 */
export function scrubErrorChain(err: unknown, input: unknown, paths: readonly string[] | undefined): void {
  if (!paths?.length) return;
  const source = input && typeof input === 'object' && 'payload' in input ? (input as { payload: unknown }).payload : input;
  const seen = new Set<unknown>();
  for (let e: unknown = err; e instanceof Error && !seen.has(e); e = e.cause) {
    seen.add(e);
    const scrubbed = scrubSensitive(e.message, source, paths);
    if (scrubbed === e.message) continue;
    // Some errors' message is a getter only (a DOMException: an aborted or timed-out fetch): an own property then.
    Object.defineProperty(e, 'message', { value: scrubbed, writable: true, configurable: true, enumerable: false });
  }
}
