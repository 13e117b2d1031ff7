// `GET /tasks`: the console's bulk tasks, newest first, with their progress (done, failed, the
// latest errors) refreshing itself; `POST /tasks/:id/cancel` stops a running one after the
// operation in flight (operators). What a task did is in each entry's audit trail either way.
import { Hono } from 'hono';
import { html } from 'hono/html';
import { requireRole } from './auth';
import type { BulkTask } from './bulk-tasks';
import type { ConsoleDeps, ConsoleEnv } from './context';
import { entryHref } from './dead-letter-views';
import { frameOf } from './frame';
import { actionForm, live, page, time, type Markup, type PageFrame } from './layout';
import { redirectWithNotice, takeNotice } from './notices';

function taskRow(frame: PageFrame, t: BulkTask): Markup {
  const cancel = t.status === 'running' && frame.user.role === 'operator'
    ? actionForm(`/tasks/${encodeURIComponent(t.id)}/cancel`, frame.csrf, html`<button type="submit" class="secondary">Cancel</button>`, { className: 'inline', confirm: 'Cancel this task? Entries it has not reached stay dead-lettered.' })
    : '';
  return html`<tr data-task="${t.id}" data-status="${t.status}"><th scope="row">${t.title}</th><td>${t.by}</td><td>${time(t.startedAt)}</td><td>${time(t.finishedAt)}</td>
<td class="status">${t.status}</td><td class="done">${t.done}</td><td class="failed">${t.failed}</td>
<td>${t.error ? html`<p class="field-error">${t.error}</p>` : ''}${t.errors.length > 0 ? html`<ul class="errors">${t.errors.map((e) => html`<li><a href="${entryHref(e.id)}">${e.id}</a>: ${e.message}</li>`)}</ul>` : t.error ? '' : '–'}</td>
<td>${cancel}</td></tr>`;
}

/** `GET /tasks` and `POST /tasks/:id/cancel`. */
export function taskRoutes({ tasks, config }: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.get('/tasks', (c) => {
    const frame = frameOf(c, 'Bulk tasks', 'tasks');
    const all = tasks.list();
    const table = all.length === 0
      ? html`<p>No bulk tasks since the console started.</p>`
      : html`<table class="tasks"><caption>Bulk redrives and discards, newest first</caption>
<thead><tr><th scope="col">Task</th><th scope="col">By</th><th scope="col">Started</th><th scope="col">Finished</th><th scope="col">Status</th><th scope="col">Done</th><th scope="col">Failed</th><th scope="col">Errors (latest)</th><th scope="col"></th></tr></thead>
<tbody>${all.map((t) => taskRow(frame, t))}</tbody></table>`;
    const body = html`${table}<p class="meta">Tasks run in the console process and go on when this page is closed; each operation is in its entry's audit trail. Read at ${time(new Date().toISOString())}; refreshes every 2 s.</p>`;
    return c.html(page(frame, html`${takeNotice(c)}${live('tasks-live', '/tasks', body, 2)}`));
  });
  app.post('/tasks/:id/cancel', requireRole('operator'), (c) => {
    const id = c.req.param('id');
    const cancelled = tasks.cancel(id);
    const task = tasks.get(id);
    const text = cancelled ? `Cancelling ${task?.title ?? id}: it stops after the operation in flight.` : `Task ${id} is not running (${task?.status ?? 'unknown'}).`;
    return redirectWithNotice(c, '/tasks', cancelled ? 'ok' : 'error', text, config.secureCookies);
  });
  return app;
}
