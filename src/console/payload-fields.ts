// A payload as a list of its fields (`payload.toAccount  "bob"`), each with the validation issues
// at its path beside it: how the patch editor shows what a patched payload would be and which field
// the job type's schema refuses. An issue at a path the payload lacks (a required field the patch
// removed) gets a row of its own.
import { html } from 'hono/html';
import type { FieldIssue } from '../shared/errors';
import type { Markup } from './layout';

/** One row of the list: a leaf value (or an empty object or array) at a dotted path. */
export interface PayloadField {
  path: string;
  /** The value as JSON; unset for a path the payload does not have. */
  json?: string;
  issues: string[];
}

function flatten(value: unknown, path: string, into: PayloadField[]): void {
  const children = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : typeof value === 'object' && value !== null ? Object.entries(value) : [];
  if (children.length === 0) {
    into.push({ path, json: JSON.stringify(value) ?? 'undefined', issues: [] });
    return;
  }
  for (const [key, child] of children) flatten(child, `${path}.${key}`, into);
}

/** zod's refusal of unknown keys names them in its message, at their object's path. */
const unknownKeysMessage = /^Unrecognized keys?: (.+)$/;

/** An issue about unknown keys as one issue per key, at the key's own path (where the editor shows it). */
function atOwnPath(issue: FieldIssue): FieldIssue[] {
  const match = unknownKeysMessage.exec(issue.message);
  if (!match) return [issue];
  const keys = [...match[1]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!);
  return keys.length === 0 ? [issue] : keys.map((key) => ({ path: `${issue.path}.${key}`, message: 'not a field of this job type (a typo, or a field this version does not know)' }));
}

/**
 * The fields of `payload` under the root `payload`, with each issue at its path: on the field
 * itself, or on a row of its own where the payload has nothing at that path. An issue about an
 * object (its path a prefix of fields) gets its own row too, before them.
 */
export function payloadFields(payload: unknown, given: readonly FieldIssue[] = []): PayloadField[] {
  const issues = given.flatMap(atOwnPath);
  const fields: PayloadField[] = [];
  flatten(payload, 'payload', fields);
  for (const issue of issues) {
    // A second issue at a missing path finds the row the first one added.
    const field = fields.find((f) => f.path === issue.path);
    if (field) {
      field.issues.push(issue.message);
      continue;
    }
    const own: PayloadField = { path: issue.path, issues: [issue.message] };
    const after = fields.findIndex((f) => f.path.startsWith(`${issue.path}.`));
    if (after >= 0) fields.splice(after, 0, own);
    else fields.push(own);
  }
  return fields;
}

/** The field list as a table; each issue is in its field's row and described by it for assistive technology. */
export function payloadFieldsTable(fields: readonly PayloadField[], caption: string): Markup {
  return html`<table class="compact fields"><caption>${caption}</caption>
<thead><tr><th scope="col">Field</th><th scope="col">Value</th><th scope="col">Problem</th></tr></thead>
<tbody>${fields.map(
    (f) => html`<tr data-path="${f.path}"${f.issues.length > 0 ? html` class="invalid"` : ''}><th scope="row"><code>${f.path}</code></th>
<td>${f.json === undefined ? html`<em>(missing)</em>` : html`<code>${f.json}</code>`}</td>
<td>${f.issues.length === 0 ? '' : html`<span class="field-error" role="alert">${f.issues.join('; ')}</span>`}</td></tr>`,
  )}</tbody></table>`;
}
