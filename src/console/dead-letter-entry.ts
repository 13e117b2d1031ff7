// `GET /dead-letters/entry/:id`: one job's dead-letter entry: its payload (under the payload rule),
// error, attempts and failures, when it was created and failed, its status and its audit trail with
// who acted; and, for an operator while it is dead-lettered, a redrive preview and a discard.
import { maskEntry } from '../client/masked-entry';
import { Hono } from 'hono';
import { html } from 'hono/html';
import type { DeadLetterEntry } from '../workflow-kit/dead-letter-entries';
import { redrivePayload } from '../workflow-kit/dead-letter-operations';
import type { ConsoleDeps, ConsoleEnv } from './context';
import { auditTable, errorText, groupHref, jobHref, payloadBlock } from './dead-letter-views';
import { frameOf } from './frame';
import { actionForm, live, page, time, type Markup } from './layout';
import { takeNotice } from './notices';
import { selectionInputs, selectionQuery } from './selection';
import type { ConsoleUser } from './users';

function entryRecord(user: ConsoleUser, e: DeadLetterEntry): Markup {
  return html`<dl class="record entry">
<dt>Status</dt><dd class="status">${e.status}</dd>
<dt>Job</dt><dd><a href="${jobHref(e.id)}">${e.id}</a> (the job's page)</dd>
<dt>Type</dt><dd>${e.type}</dd>
<dt>Group</dt><dd><a href="${groupHref(e.type, e.fingerprint)}">${e.fingerprint}</a> <code>${e.fingerprintText}</code></dd>
<dt>Error</dt><dd class="error">${errorText(e.error)}</dd>
<dt>Attempts</dt><dd>${e.attempts} (across every run)</dd>
<dt>Failures</dt><dd>${e.failures} (1, plus one per redrive that failed again)</dd>
<dt>Created</dt><dd>${time(e.createdAt)}</dd>
<dt>First failed</dt><dd>${time(e.firstFailedAt)}</dd>
<dt>Last failed</dt><dd>${time(e.lastFailedAt)} (run <code>${e.lastRunId}</code>)</dd>
</dl>
${payloadSection(user, e)}
<h2>Audit trail</h2>${auditTable(user, e.audit)}`;
}

/** The payload; for an entry redriven with a patch, the payload it failed with, the patch, and what the redrive started. */
function payloadSection(user: ConsoleUser, e: DeadLetterEntry): Markup {
  const patched = e.status === 'redriven' ? [...e.audit].reverse().find((r) => r.action === 'redrive' && r.result.startsWith('started run ') && r.patch !== undefined) : undefined;
  if (!patched) return html`<h2>Payload</h2>${payloadBlock(user, e.payload)}`;
  return html`<h2>Payload it failed with</h2>${payloadBlock(user, e.payload, 'Payload it failed with')}
<h2>Patch of its redrive</h2>${payloadBlock(user, patched.patch, 'Patch of its redrive')}
<h2>Payload its redrive started</h2>${payloadBlock(user, redrivePayload(e, patched.patch), 'Payload its redrive started')}`;
}

function entryActions(csrf: string, e: DeadLetterEntry, back: string): Markup {
  const selection = { type: e.type, id: e.id };
  return html`<section aria-labelledby="act-h"><h2 id="act-h">Act on this job</h2>
<p><a href="/dead-letters/preview?${selectionQuery(selection)}">Preview its redrive</a>: what the ledger recorded for its failed execution, and a patch editor.</p>
${actionForm(
    '/dead-letters/discard',
    csrf,
    html`${selectionInputs(selection)}<input type="hidden" name="back" value="${back}"><div class="filters"><div><label for="discard-reason">Reason (required)</label><input id="discard-reason" name="reason" required maxlength="500"></div>
<div><button type="submit" class="danger">Discard</button></div></div>`,
    { className: 'discard', confirm: `Discard ${e.id}? It will not run again.` },
  )}</section>`;
}

/** `GET /dead-letters/entry/:id` (the ID URL-encoded; it may hold `/`). */
export function deadLetterEntryRoutes({ jobs }: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.get('/dead-letters/entry/:id{.+}', async (c) => {
    const id = c.req.param('id');
    const frame = frameOf(c, `Dead letter ${id}`, 'dead-letters');
    const entry = maskEntry(await jobs.deadLetters.show(id), jobs.catalog);
    const self = new URL(c.req.url).pathname;
    const actions = entry.status === 'dead-lettered' && frame.user.role === 'operator' ? entryActions(frame.csrf, entry, self) : '';
    const body = html`${entryRecord(frame.user, entry)}<p class="meta">Read at ${time(new Date().toISOString())}; refreshes every 5 s.</p>`;
    return c.html(page(frame, html`<p><a href="${groupHref(entry.type, entry.fingerprint)}">← Its group</a></p>${takeNotice(c)}${live('dlq-entry', self, body)}${actions}`));
  });
  return app;
}
