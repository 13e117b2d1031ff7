// `GET /dead-letters/:type/:fingerprint`: one failure group's entries, oldest failure first, a page
// at a time through the DLQ client's cursor; and what an operator may do with the group: preview a
// redrive (of all of it, or of those that failed in a time window), redrive one first as a canary,
// or discard it with a reason.
import { Hono } from 'hono';
import { html } from 'hono/html';
import type { ConsoleDeps, ConsoleEnv } from './context';
import { entriesTable, errorText } from './dead-letter-views';
import { frameOf } from './frame';
import { actionForm, live, page, time, type Markup } from './layout';
import { takeNotice } from './notices';
import { selectionInputs, selectionQuery, type ConsoleSelection } from './selection';

/** Entries on one page of a group, unless `?limit=` says otherwise (at most 200). */
const defaultPageSize = 25;

/** The group's actions, for operators. */
function groupActions(csrf: string, selection: ConsoleSelection, count: number, back: string): Markup {
  const hidden = html`${selectionInputs(selection)}<input type="hidden" name="back" value="${back}">`;
  return html`<section aria-labelledby="act-h"><h2 id="act-h">Act on this group</h2>
<p><a href="/dead-letters/preview?${selectionQuery(selection)}">Preview a redrive of all ${count}</a>: what the ledger recorded for each job, and a patch editor.</p>
<p><a href="/dead-letters/preview?${selectionQuery(selection)}#act-h">Redrive one first (canary)</a>: from the preview, as every redrive, with a patch and a reason if need be; it redrives the oldest entry and shows its outcome, then offers the rest.</p>
<form method="get" action="/dead-letters/preview" class="filters selection">${selectionInputs({ type: selection.type, fingerprint: selection.fingerprint })}
<div><label for="failedAfter">Failed after (UTC)</label><input id="failedAfter" name="failedAfter" placeholder="2026-12-01T10:00:00Z"></div>
<div><label for="failedBefore">Failed before (UTC)</label><input id="failedBefore" name="failedBefore" placeholder="2026-12-01T12:00:00Z"></div>
<div><button type="submit" class="secondary">Preview a redrive of these</button></div></form>
${actionForm(
    '/dead-letters/discard',
    csrf,
    html`${hidden}<div class="filters"><div><label for="discard-reason">Reason (required)</label><input id="discard-reason" name="reason" required maxlength="500"></div>
<div><label for="discard-rate">Rate (per second)</label><input id="discard-rate" name="rate" value="20" inputmode="decimal" size="5"></div>
<div><button type="submit" class="danger">Discard all ${count}</button></div></div>`,
    { className: 'discard', confirm: `Discard all ${count} jobs of this group? They will not run again.` },
  )}</section>`;
}

/** `GET /dead-letters/:type/:fingerprint[?cursor=C][&limit=N]`. */
export function deadLetterGroupRoutes({ jobs }: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.get('/dead-letters/:type/:fingerprint{[0-9a-f]+}', async (c) => {
    const { type, fingerprint } = c.req.param();
    const frame = frameOf(c, `Group ${fingerprint}`, 'dead-letters');
    const cursor = c.req.query('cursor') || undefined;
    const limitText = c.req.query('limit');
    const limit = limitText === undefined ? defaultPageSize : Math.min(200, Math.max(1, Number.parseInt(limitText, 10) || defaultPageSize));
    const [groups, { entries, nextCursor }] = await Promise.all([jobs.deadLetters.groups(type), jobs.deadLetters.page({ type, fingerprint, limit, cursor })]);
    const group = groups.find((g) => g.fingerprint === fingerprint);
    const base = `${new URL(c.req.url).pathname}${limitText === undefined ? '' : `?limit=${limit}`}`;
    const link = (next: string | undefined) => `${base}${base.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(next ?? '')}`;
    const self = cursor === undefined ? base : link(cursor);
    const summary = group
      ? html`<dl class="record group"><dt>Type</dt><dd>${type}</dd><dt>Jobs</dt><dd class="count">${group.count}</dd><dt>First seen</dt><dd>${time(group.firstFailedAt)}</dd><dt>Last seen</dt><dd>${time(group.lastFailedAt)}</dd>
<dt>Error</dt><dd>${errorText({ type: group.errorType, message: group.sample })}</dd><dt>Fingerprint of</dt><dd><code>${group.fingerprintText}</code></dd></dl>`
      : html`<p>No job of this group is dead-lettered now.</p>`;
    const pager = html`<nav class="pager" aria-label="Pages of entries">${cursor === undefined ? '' : html`<a href="${base}">First page</a>`}${nextCursor ? html`<a href="${link(nextCursor)}" rel="next">Next page →</a>` : ''}</nav>`;
    const body = html`${summary}${entriesTable(entries, cursor === undefined ? 'Dead-lettered entries, oldest failure first' : 'Dead-lettered entries (a later page)')}${pager}
<p class="meta">Read at ${time(new Date().toISOString())}; refreshes every 5 s.</p>`;
    const actions = group && frame.user.role === 'operator' ? groupActions(frame.csrf, { type, fingerprint }, group.count, new URL(c.req.url).pathname) : '';
    return c.html(page(frame, html`<p><a href="/dead-letters?type=${encodeURIComponent(type)}">← All groups of ${type}</a></p>${takeNotice(c)}${live('dlq-group', self, body)}${actions}`));
  });
  return app;
}
