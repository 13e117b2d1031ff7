// The jobs list: jobs from Temporal's visibility store, filtered by type, status, ID prefix and
// creation time, one page at a time with Temporal's own page token as the cursor (nothing is
// loaded whole). The list refreshes itself; the filter form stays outside it.
import { Hono } from 'hono';
import { html } from 'hono/html';
import { listableStatuses, listJobsPage, listQuery, type JobListPage } from '../client/job-list';
import type { FieldIssue } from '../shared/errors';
import type { ConsoleDeps, ConsoleEnv } from './context';
import { badCursor, filterSearch, parseJobFilters, type JobFilterValues } from './job-filters';
import { frameOf } from './frame';
import { live, page, time, type Markup } from './layout';
import { PageCursors } from './page-cursor';

/** Jobs per page. */
export const jobsPerPage = 50;

/** The link to a job's page; IDs may hold any character, `/` and `?` among them. */
export function jobHref(id: string): string {
  return `/jobs/${encodeURIComponent(id)}`;
}

function filterForm(values: JobFilterValues, types: readonly string[] | undefined) {
  const option = (value: string, label: string, selected: string) => html`<option value="${value}"${value === selected ? html` selected` : ''}>${label}</option>`;
  return html`<form method="get" action="/jobs" class="filters" role="search" aria-label="Filter jobs">
<div><label for="f-type">Type</label>${
    types
      ? html`<select id="f-type" name="type">${option('', 'any type', values.type)}${types.map((t) => option(t, t, values.type))}</select>`
      : html`<input id="f-type" name="type" value="${values.type}">`
  }</div>
<div><label for="f-status">Status</label><select id="f-status" name="status">${option('', 'any status', values.status)}${listableStatuses.map((s) => option(s, s, values.status))}</select></div>
<div><label for="f-prefix">ID prefix</label><input id="f-prefix" name="prefix" value="${values.prefix}" autocomplete="off" spellcheck="false"></div>
<div><label for="f-from">Created from</label><input id="f-from" name="from" value="${values.from}" placeholder="2026-01-01T09:00Z" aria-describedby="f-time-hint"></div>
<div><label for="f-to">Created before</label><input id="f-to" name="to" value="${values.to}" placeholder="2026-01-02" aria-describedby="f-time-hint"></div>
<div><button type="submit">Filter</button></div>
<div><a href="/jobs">Clear filters</a></div>
</form>
<p class="meta" id="f-time-hint">Times are UTC unless they carry an offset. "Created" is when the job's latest run started: its enqueue, or its latest redrive.</p>`;
}

function listBody(result: JobListPage, values: JobFilterValues, cursor: string | undefined, next: string | undefined) {
  return html`${
    result.jobs.length === 0
      ? html`<p>No jobs match${cursor ? ' on this page' : ''}.</p>`
      : html`<table><caption>${result.jobs.length} job${result.jobs.length === 1 ? '' : 's'}${cursor ? ' (a later page)' : ''}</caption>
<thead><tr><th scope="col">ID</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Closed</th></tr></thead>
<tbody>${result.jobs.map((j) => html`<tr><th scope="row"><a href="${jobHref(j.id)}" class="job-id">${j.id}</a></th><td>${j.type}</td><td><span class="status status-${j.status}">${j.status}</span></td><td>${time(j.createdAt)}</td><td>${time(j.closedAt)}</td></tr>`)}</tbody></table>`
  }
<nav class="pager" aria-label="Pages">${cursor ? html`<a href="/jobs${filterSearch(values)}">First page</a>` : ''}${next ? html`<a href="/jobs${filterSearch(values, next)}" rel="next">Next page</a>` : ''}</nav>
<p class="meta">From Temporal's visibility store (a new job shows within a second or so): running jobs first, then the most recently closed; ${jobsPerPage} per page. Refreshes every 5 s.</p>`;
}

function issuesNotice(issues: FieldIssue[]): Markup {
  return html`<div class="notice error" role="alert"><p>The filters were not applied:</p><ul class="issues">${issues.map((i) => html`<li>${i.path}: ${i.message}</li>`)}</ul></div>`;
}

/** `GET /jobs`: the filtered, paged jobs list. */
export function jobsListRoutes({ jobs, config }: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const cursors = new PageCursors(config.sessionSecret);
  app.get('/jobs', async (c) => {
    const types = jobs.catalog?.types;
    const { values, options, cursor, issues } = parseJobFilters(c.req.query(), types);
    const frame = frameOf(c, 'Jobs', 'jobs');
    const form = filterForm(values, types);
    const query = listQuery(options, jobs.catalog);
    const token = cursor === undefined ? undefined : cursors.open(cursor, query);
    if (cursor !== undefined && token === undefined && issues.length === 0) issues.push(badCursor);
    if (issues.length > 0) return c.html(page(frame, html`${form}${issuesNotice(issues)}`), 400);
    const result = await listJobsPage(jobs.temporal, options, jobs.catalog, { pageSize: jobsPerPage, nextPageToken: token });
    const next = result.nextPageToken && cursors.seal(result.nextPageToken, query);
    const url = `/jobs${filterSearch(values, cursor)}`;
    return c.html(page(frame, html`${form}${live('jobs-live', url, listBody(result, values, cursor, next))}`));
  });
  return app;
}
