// The overview: the system's state at a glance, per job type and task queue, with an hour of
// throughput and failure rate as charts (drawn by console.js from the JSON route) and as a table.
import { Hono } from 'hono';
import { html } from 'hono/html';
import type { ConsoleDeps, ConsoleEnv } from './context';
import { frameOf } from './frame';
import { live, page, time } from './layout';
import { readOverview, type Overview } from './overview-data';
import type { OutboxBacklog } from '../outbox/outbox-backlog';
import { breakersSection } from './breakers';
import type { BreakerView } from '../client/breakers';
import type { ConsoleUser } from './users';
import { takeNotice } from './notices';

const cacheMs = 3000;

function overviewBody(o: Overview, breakers: readonly BreakerView[], user: ConsoleUser, csrf: string) {
  const rate = (failed: number, completed: number) => (failed + completed === 0 ? '–' : `${((100 * failed) / (failed + completed)).toFixed(1)}%`);
  return html`
<section aria-labelledby="types-h"><h2 id="types-h">Job types</h2>
<table><caption>Jobs now scheduled and running; <em>runs</em> that closed in the last hour (a job retried by redrive counts once per run); entries now in the DLQ. The lists they open show each job once, in its latest state, at any time.</caption>
<thead><tr><th scope="col">Type</th><th scope="col">Task queue</th><th scope="col">Scheduled</th><th scope="col">Running</th><th scope="col">Runs completed (1 h)</th><th scope="col">Runs failed (1 h)</th><th scope="col">Dead letters</th></tr></thead>
<tbody>${o.types.map((t) => html`<tr>
<th scope="row"><a href="/jobs?type=${encodeURIComponent(t.type)}">${t.type}</a></th><td>${t.taskQueue}</td><td>${t.scheduled}</td><td>${t.running}</td><td>${t.completedLastHour}</td>
<td>${t.failedLastHour > 0 ? html`<a href="/jobs?type=${encodeURIComponent(t.type)}&amp;status=failed">${t.failedLastHour}</a>` : '0'}</td>
<td>${t.deadLettered > 0 ? html`<a href="/dead-letters?type=${encodeURIComponent(t.type)}">${t.deadLettered}</a>` : '0'}</td></tr>`)}</tbody></table>
</section>
<section aria-labelledby="queues-h"><h2 id="queues-h">Task queues</h2>
<table><thead><tr><th scope="col">Task queue</th><th scope="col">Side</th><th scope="col">Backlog</th><th scope="col">Oldest waiting</th><th scope="col">Workers polling</th></tr></thead>
<tbody>${o.queues.flatMap((q) => q.sides.map((s) => html`<tr${s.pollers === 0 ? html` class="warn"` : ''}><th scope="row">${q.taskQueue}</th><td>${s.queueType}</td><td>${s.count}</td><td>${s.count > 0 ? `${s.ageSeconds.toFixed(1)} s` : '–'}</td><td>${s.pollers === 0 ? 'none' : s.pollers}</td></tr>`))}</tbody></table>
</section>
${breakersSection(breakers, user, csrf)}
${o.outbox ? outboxSection(o.outbox) : ''}
<section aria-labelledby="hour-h"><h2 id="hour-h">The last hour</h2>
<table class="compact"><caption>Runs closed per 5 minutes</caption><thead><tr><th scope="col">From (UTC)</th>${o.throughput.at.map((t) => html`<th scope="col">${new Date(t * 1000).toISOString().slice(11, 16)}</th>`)}</tr></thead>
<tbody><tr><th scope="row">Completed</th>${o.throughput.completed.map((n) => html`<td>${n}</td>`)}</tr>
<tr><th scope="row">Failed</th>${o.throughput.failed.map((n) => html`<td>${n}</td>`)}</tr>
<tr><th scope="row">Failure rate</th>${o.throughput.failed.map((f, i) => html`<td>${rate(f, o.throughput.completed[i]!)}</td>`)}</tr></tbody></table>
</section>
<p class="meta">Read at ${time(o.at)}; refreshes every 5 s.</p>`;
}

/** The job outbox: what transactions committed and no relay has started yet. */
function outboxSection(b: OutboxBacklog) {
  const stuck = b.failing > 0 || b.oldestAgeSeconds > 60;
  return html`<section aria-labelledby="outbox-h"><h2 id="outbox-h">Job outbox</h2>
<table><caption>Jobs committed with <code>enqueueInTransaction</code> that no worker's relay has started yet</caption>
<thead><tr><th scope="col">Waiting</th><th scope="col">Oldest waiting</th><th scope="col">Failing to start</th><th scope="col">ID conflicts</th></tr></thead>
<tbody><tr${stuck ? html` class="warn"` : ''}><td>${b.waiting}</td><td>${b.waiting > 0 ? `${b.oldestAgeSeconds.toFixed(1)} s` : '–'}</td><td>${b.failing}</td><td>${b.conflicts}</td></tr></tbody></table>
</section>`;
}

/** `GET /` and `GET /overview/throughput.json`. */
export function overviewRoutes({ jobs, db }: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  let cached: { at: number; value: Promise<Overview> } | undefined;
  const overview = () => {
    if (!cached || Date.now() - cached.at > cacheMs) {
      cached = { at: Date.now(), value: readOverview(jobs, new Date(), db) };
      cached.value.catch(() => (cached = undefined));
    }
    return cached.value;
  };
  app.get('/', async (c) => {
    // The breakers are read on each request (one describe each), not cached: an order's redirect shows it.
    const [o, breakers] = await Promise.all([overview(), jobs.breakers.list()]);
    const { user, csrf } = c.get('session');
    const charts = html`<section aria-labelledby="charts-h"><h2 id="charts-h">Throughput and failure rate</h2>
<div class="charts"><figure><div class="chart" data-chart="throughput" data-src="/overview/throughput.json" role="img" aria-label="Jobs completed and failed per 5 minutes over the last hour"></div><figcaption>Completed and failed per 5 minutes</figcaption></figure>
<figure><div class="chart" data-chart="failure-rate" data-src="/overview/throughput.json" role="img" aria-label="Failure rate per 5 minutes over the last hour"></div><figcaption>Failure rate</figcaption></figure></div></section>`;
    const region = live('overview-live', '/', overviewBody(o, breakers, user, csrf));
    if (c.req.header('hx-request') !== undefined) return c.html(region);
    return c.html(page(frameOf(c, 'Overview', 'overview'), html`${takeNotice(c)}${charts}${region}`));
  });
  app.get('/overview/throughput.json', async (c) => c.json((await overview()).throughput));
  return app;
}
