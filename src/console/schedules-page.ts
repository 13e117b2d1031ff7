// The schedules page: this deployment's recurring jobs with their spec, state, next and last run;
// and for operators pause and unpause (with a note, recorded on the schedule), trigger now and
// delete. Each action redirects back with a notice.
import { Hono, type Context } from 'hono';
import { html } from 'hono/html';
import type { JobSchedules, ScheduleSummary } from '../client/schedules';
import { describeError, ScheduleNotFoundError } from '../shared/errors';
import { requireRole } from './auth';
import type { ConsoleDeps, ConsoleEnv } from './context';
import { redirectWithNotice, takeNotice } from './notices';
import { frameOf } from './frame';
import { jobHref } from './jobs-list';
import { actionForm, live, page, time, type Markup } from './layout';
import type { ConsoleUser } from './users';

/** Schedules described at once when the page refreshes their state. */
const describeConcurrency = 8;

/** Longest note kept on a pause or unpause. */
const maxNoteLength = 200;

const scheduleHref = (id: string) => `/schedules/${encodeURIComponent(id)}`;

/**
 * The schedules as they are now: the IDs from visibility (which indexes a change within a second
 * or so), each state read from the schedule itself, so the page right after an action shows it.
 */
async function currentSchedules(schedules: JobSchedules): Promise<ScheduleSummary[]> {
  const listed = await schedules.list();
  const current: (ScheduleSummary | undefined)[] = [];
  for (let i = 0; i < listed.length; i += describeConcurrency) {
    const batch = listed.slice(i, i + describeConcurrency);
    current.push(
      ...(await Promise.all(
        batch.map((s) =>
          schedules.get(s.id).catch((err: unknown) => {
            // Deleted since visibility listed it.
            if (err instanceof ScheduleNotFoundError) return undefined;
            throw err;
          }),
        ),
      )),
    );
  }
  return current.filter((s): s is ScheduleSummary => s !== undefined);
}

function actions(s: ScheduleSummary, csrf: string): Markup {
  const base = scheduleHref(s.id);
  const noteId = `note-${encodeURIComponent(s.id)}`;
  const toggle = s.paused ? 'unpause' : 'pause';
  return html`<div class="actions">
${actionForm(`${base}/${toggle}`, csrf, html`<label for="${noteId}" class="visually-hidden">Note on ${toggle} of ${s.id}</label><input id="${noteId}" name="note" maxlength="${maxNoteLength}" placeholder="note (optional)"> <button type="submit" class="secondary">${s.paused ? 'Unpause' : 'Pause'}</button>`, { className: 'inline' })}
${actionForm(`${base}/trigger`, csrf, html`<button type="submit" class="secondary">Trigger now</button>`, { className: 'inline' })}
${actionForm(`${base}/delete`, csrf, html`<button type="submit" class="danger">Delete</button>`, { className: 'inline', confirm: `Delete the schedule ${s.id}? Runs already started go on; no new ones start.` })}
</div>`;
}

function schedulesBody(rows: ScheduleSummary[], user: ConsoleUser, csrf: string): Markup {
  if (rows.length === 0) return html`<p>This deployment has no schedules. Create one with <code>jobctl schedule create</code> or <code>JobClient.schedules.create</code>.</p>`;
  const operator = user.role === 'operator';
  return html`<table><thead><tr><th scope="col">Schedule</th><th scope="col">Job type</th><th scope="col">Spec (UTC)</th><th scope="col">State</th><th scope="col">Next run</th><th scope="col">Last run</th>${operator ? html`<th scope="col">Actions</th>` : ''}</tr></thead>
<tbody>${rows.map((s) => {
    const last = s.recentJobs.at(-1);
    return html`<tr data-schedule="${s.id}"><th scope="row">${s.id}</th><td>${s.type}</td><td><code>${s.spec}</code></td>
<td><span class="status status-${s.paused ? 'paused' : 'active'}">${s.paused ? 'paused' : 'active'}</span>${s.note ? html`<br><span class="meta note">${s.note}</span>` : ''}</td>
<td>${time(s.nextRunAt)}</td><td>${last ? html`${time(s.lastRunAt)}<br><a href="${jobHref(last)}">${last}</a>` : '–'}</td>${operator ? html`<td>${actions(s, csrf)}</td>` : ''}</tr>`;
  })}</tbody></table>`;
}

/** The note an action records: the operator's, or a default, with who did it. */
async function noteOf(c: Context<ConsoleEnv>, action: string): Promise<string> {
  const field = (await c.req.parseBody()).note;
  const given = typeof field === 'string' ? field.trim().slice(0, maxNoteLength) : '';
  return `${given || `${action} in the console`} (${c.get('session').user.name})`;
}

/** `GET /schedules` and, for operators, `POST /schedules/:id/{pause,unpause,trigger,delete}`. */
export function scheduleRoutes({ jobs, config }: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.get('/schedules', async (c) => {
    const { user, csrf } = c.get('session');
    const rows = await currentSchedules(jobs.schedules);
    const region = live('schedules-live', '/schedules', schedulesBody(rows, user, csrf), 10);
    if (c.req.header('hx-request') !== undefined) return c.html(region);
    const body = html`${takeNotice(c)}${region}<p class="meta">Runs are ordinary jobs whose ID is the schedule's plus the scheduled time. Pausing stops new runs (missed times are not made up); runs already started go on.</p>`;
    return c.html(page(frameOf(c, 'Schedules', 'schedules'), body));
  });
  const act = (name: string, run: (c: Context<ConsoleEnv>, id: string) => Promise<string>) =>
    app.post(`/schedules/:id/${name}`, requireRole('operator'), async (c) => {
      const id = c.req.param('id');
      try {
        return redirectWithNotice(c, '/schedules', 'ok', await run(c, id), config.secureCookies);
      } catch (err) {
        if (err instanceof ScheduleNotFoundError) return redirectWithNotice(c, '/schedules', 'error', `Nothing done: ${describeError(err)}`, config.secureCookies);
        throw err;
      }
    });
  act('pause', async (c, id) => {
    const note = await noteOf(c, 'paused');
    await jobs.schedules.pause(id, note);
    return `Paused ${id}: ${note}`;
  });
  act('unpause', async (c, id) => {
    const note = await noteOf(c, 'unpaused');
    await jobs.schedules.unpause(id, note);
    return `Unpaused ${id}: ${note}`;
  });
  act('trigger', async (_c, id) => {
    await jobs.schedules.trigger(id);
    return `Triggered ${id}: one run starts now, besides the scheduled ones.`;
  });
  act('delete', async (_c, id) => {
    await jobs.schedules.delete(id);
    return `Deleted ${id}; runs already started go on.`;
  });
  return app;
}
