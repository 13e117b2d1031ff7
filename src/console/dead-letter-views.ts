// Markup the dead-letter pages share: an entry's payload (shown only to users who may see
// payloads), its audit trail with who acted, a table of entries, and the links between the pages.
import { html } from 'hono/html';
import type { AuditRecord, DeadLetterEntry } from '../workflow-kit/dead-letter-entries';
import { time, type Markup } from './layout';
import type { ConsoleUser } from './users';

/** The entry page of a job. */
export function entryHref(id: string): string {
  return `/dead-letters/entry/${encodeURIComponent(id)}`;
}

/** The page of a failure group. */
export function groupHref(type: string, fingerprint: string): string {
  return `/dead-letters/${encodeURIComponent(type)}/${encodeURIComponent(fingerprint)}`;
}

/** The job's own page (the jobs section), defined with it. */
export { jobHref } from './jobs-list';

/** A JSON value as an indented block, or a note that payloads are hidden from this user. */
export function payloadBlock(user: ConsoleUser, value: unknown, label = 'Payload'): Markup {
  if (!user.payloads) return html`<p class="meta">Payloads are hidden from your account (a viewer without <code>payloads</code>).</p>`;
  return html`<pre aria-label="${label}">${JSON.stringify(value, null, 2)}</pre>`;
}

/** An error as `type: message`. */
export function errorText(error: { type?: string; message: string }): string {
  return error.type ? `${error.type}: ${error.message}` : error.message;
}

/** The audit trail, oldest first: when, what, who, what came of it, why, and the patch (a payload fragment, so under the payload rule). */
export function auditTable(user: ConsoleUser, audit: readonly AuditRecord[]): Markup {
  return html`<table class="compact audit"><caption>Audit trail, oldest first</caption>
<thead><tr><th scope="col">At</th><th scope="col">Action</th><th scope="col">By</th><th scope="col">Result</th><th scope="col">Reason / detail</th><th scope="col">Patch</th></tr></thead>
<tbody>${audit.map(
    (r) => html`<tr><td>${time(r.at)}</td><td>${r.action}</td><td class="by">${r.by ?? '–'}</td><td>${r.result}</td><td>${r.detail ?? '–'}</td>
<td>${r.patch === undefined ? '–' : user.payloads ? html`<code>${JSON.stringify(r.patch)}</code>` : 'hidden'}</td></tr>`,
  )}</tbody></table>`;
}

/** A table of entries, each linking to its page. */
export function entriesTable(entries: readonly DeadLetterEntry[], caption: string): Markup {
  if (entries.length === 0) return html`<p>No entries.</p>`;
  return html`<table class="entries"><caption>${caption}</caption>
<thead><tr><th scope="col">Job</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Failures</th><th scope="col">First failed</th><th scope="col">Last failed</th><th scope="col">Error</th></tr></thead>
<tbody>${entries.map(
    (e) => html`<tr data-id="${e.id}"><th scope="row"><a href="${entryHref(e.id)}">${e.id}</a></th><td>${e.status}</td><td>${e.attempts}</td><td>${e.failures}</td>
<td>${time(e.firstFailedAt)}</td><td>${time(e.lastFailedAt)}</td><td>${errorText(e.error).slice(0, 200)}</td></tr>`,
  )}</tbody></table>`;
}
