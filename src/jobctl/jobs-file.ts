// The file of `jobctl enqueue <type> --file jobs.jsonl`: one job a line, `{"payload": {...}}` with
// an optional `"id"`. A line without an ID gets one derived from its number and its payload, so
// running the same file again (after an interruption) starts only the lines that are missing.
import { createHash } from 'node:crypto';
import type { FieldIssue } from '../shared/errors';
import type { EnqueueManyItem } from '../client/enqueue-many';

/** A jobs file, read: its items (labelled `line <n>`) and the lines that are not a job at all. */
export interface JobsFile {
  items: EnqueueManyItem[];
  /** Lines that are not JSON, or not an object with a `payload`: each with its line number. */
  malformed: { line: number; label: string; issues: FieldIssue[] }[];
}

/**
 * The job ID of a line without one: `<type>-<hash>`, the hash of the line's number and its payload
 * (as parsed, so spacing does not matter). Stable across runs of the same file, and across lines
 * added at its end; a line moved, or a payload changed, is a new job.
 */
export function lineJobId(type: string, line: number, payload: unknown): string {
  return `${type}-${createHash('sha256').update(`${line}\n${JSON.stringify(payload)}`).digest('hex').slice(0, 24)}`;
}

/**
 * Parses a jobs file's text. `deriveIds` false leaves lines without an ID to the job type's
 * idempotency key. Blank lines are skipped; line numbers count them.
 */
export function parseJobsFile(text: string, type: string, deriveIds: boolean): JobsFile {
  const file: JobsFile = { items: [], malformed: [] };
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    const label = `line ${line}`;
    if (raw.trim() === '') return;
    const bad = (path: string, message: string) => file.malformed.push({ line, label, issues: [{ path, message }] });
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      return bad('', `not valid JSON (${(err as Error).message})`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !('payload' in value)) return bad('', 'must be an object {"payload": {...}} with an optional "id"');
    const { payload, id, ...rest } = value as { payload: unknown; id?: unknown };
    const extra = Object.keys(rest);
    if (extra.length > 0) return bad(extra[0]!, 'unknown field: a line holds "payload" and an optional "id"');
    if (id !== undefined && typeof id !== 'string') return bad('id', `must be a string, got ${JSON.stringify(id)}`);
    file.items.push({ payload, label, id: id ?? (deriveIds ? lineJobId(type, line, payload) : undefined) });
  });
  return file;
}
