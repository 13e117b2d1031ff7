// `GET /dead-letters`: what is failing, as failure groups (one fingerprint of one job type), largest
// first, with when each was first and last seen, its error and an example payload; filterable by
// type and paged. The table refreshes itself while the page is open.
import { maskEntry } from '../client/masked-entry';
import { Hono } from 'hono';
import { html } from 'hono/html';
import type { DeadLetterGroup } from '../workflow-kit/dead-letter-entries';
import { describeError } from '../shared/errors';
import type { ConsoleDeps, ConsoleEnv } from './context';
import { groupHref, payloadBlock } from './dead-letter-views';
import { frameOf } from './frame';
import { live, notice, page, time, type Markup } from './layout';
import { takeNotice } from './notices';
import type { ConsoleUser } from './users';

/** Groups on one page of the list. */
const groupsPerPage = 20;

/** Example payloads kept between refreshes (an entry's payload does not change while it waits). */
const exampleCacheSize = 500;

type TypedGroup = DeadLetterGroup & { type: string };

function groupsTable(user: ConsoleUser, groups: TypedGroup[], examples: Map<string, unknown>): Markup {
  if (groups.length === 0) return html`<p>No dead-lettered jobs.</p>`;
  return html`<table class="groups"><caption>Failure groups, largest first</caption>
<thead><tr><th scope="col">Type</th><th scope="col">Group</th><th scope="col">Jobs</th><th scope="col">First seen</th><th scope="col">Last seen</th><th scope="col">Error type</th><th scope="col">Message</th><th scope="col">Example payload</th></tr></thead>
<tbody>${groups.map((g) => {
    const example = g.exampleId === undefined ? undefined : examples.get(`${g.type}\u0000${g.exampleId}`);
    return html`<tr data-fingerprint="${g.fingerprint}"><td>${g.type}</td><th scope="row"><a href="${groupHref(g.type, g.fingerprint)}">${g.fingerprint}</a></th>
<td class="count">${g.count}</td><td>${time(g.firstFailedAt)}</td><td>${time(g.lastFailedAt)}</td><td>${g.errorType ?? '–'}</td><td>${g.sample.slice(0, 300)}</td>
<td>${g.exampleId === undefined ? '–' : html`<details><summary>${g.exampleId}</summary>${example === undefined ? html`<p class="meta">not available</p>` : payloadBlock(user, example, `Example payload of ${g.exampleId}`)}</details>`}</td></tr>`;
  })}</tbody></table>`;
}

/** `GET /dead-letters[?type=T][&page=N]`. */
export function deadLetterGroupsRoutes({ jobs }: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const examples = new Map<string, unknown>();
  const remember = (key: string, payload: unknown) => {
    examples.set(key, payload);
    if (examples.size > exampleCacheSize) examples.delete(examples.keys().next().value!);
  };

  app.get('/dead-letters', async (c) => {
    const user = c.get('session').user;
    const types = jobs.catalog?.types ?? [];
    const typeText = c.req.query('type') ?? '';
    const type = typeText === '' ? undefined : typeText;
    const problems = type !== undefined && types.length > 0 && !types.includes(type) ? [`type: must be one of ${types.join(', ')}`] : [];
    const all = problems.length > 0 ? [] : await jobs.deadLetters.groups(type);
    const pages = Math.max(1, Math.ceil(all.length / groupsPerPage));
    const pageNo = Math.min(pages, Math.max(1, Number.parseInt(c.req.query('page') ?? '1', 10) || 1));
    const shown = all.slice((pageNo - 1) * groupsPerPage, pageNo * groupsPerPage);
    if (user.payloads) {
      await Promise.all(
        shown.map(async (g) => {
          const key = `${g.type}\u0000${g.exampleId}`;
          if (g.exampleId === undefined || examples.has(key)) return;
          try {
            remember(key, maskEntry(await jobs.deadLetters.show(g.exampleId, g.type), jobs.catalog).payload);
          } catch (err) {
            problems.push(`example ${g.exampleId}: ${describeError(err)}`);
          }
        }),
      );
    }
    const query = (n: number) => new URLSearchParams({ ...(type ? { type } : {}), ...(n > 1 ? { page: String(n) } : {}) }).toString();
    const self = `/dead-letters${query(pageNo) ? `?${query(pageNo)}` : ''}`;
    const total = all.reduce((sum, g) => sum + g.count, 0);
    const filter = html`<form method="get" action="/dead-letters" class="filters" role="search">
<div><label for="type">Job type</label><select id="type" name="type"><option value="">every type</option>${types.map((t) => html`<option value="${t}"${t === type ? html` selected` : ''}>${t}</option>`)}</select></div>
<div><button type="submit" class="secondary">Show</button></div></form>`;
    const pager = pages > 1
      ? html`<nav class="pager" aria-label="Pages of groups">${pageNo > 1 ? html`<a href="/dead-letters?${query(pageNo - 1)}">← Previous</a>` : ''}<span>Page ${pageNo} of ${pages}</span>${pageNo < pages ? html`<a href="/dead-letters?${query(pageNo + 1)}" rel="next">Next →</a>` : ''}</nav>`
      : '';
    const body = html`<p class="summary">${total} dead-lettered job(s) in ${all.length} group(s)${type ? html` of <strong>${type}</strong>` : ''}.</p>
${problems.map((p) => notice('error', p))}${groupsTable(user, shown, examples)}${pager}<p class="meta">Read at ${time(new Date().toISOString())}; refreshes every 10 s.</p>`;
    return c.html(page(frameOf(c, 'Dead letters', 'dead-letters'), html`${takeNotice(c)}${filter}${live('dlq-groups', self, body, 10)}`));
  });
  return app;
}
