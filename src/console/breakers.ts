// The overview's circuit breakers: each dependency's breaker (state, since when and why, its last
// change) and, for operators, the order to hold it open or close it, with a note recorded with the
// operator's name in the breaker's changes (as `jobctl breaker` records JOBCTL_USER).
import { Hono } from 'hono';
import { html } from 'hono/html';
import { BreakerNoWorkerError, type BreakerView } from '../client/breakers';
import { InvalidOptionError, describeError } from '../shared/errors';
import { requireRole } from './auth';
import type { ConsoleDeps, ConsoleEnv } from './context';
import { actionForm, time, type Markup } from './layout';
import { redirectWithNotice } from './notices';
import type { ConsoleUser } from './users';

/** Longest note kept with an order. */
const maxNoteLength = 200;

function orderForms(view: BreakerView, csrf: string): Markup {
  const orders = [...(view.forced ? [] : (['open'] as const)), ...(view.state === 'closed' ? [] : (['close'] as const))];
  return html`<div class="actions">${orders.map((to) => orderForm(view, to, csrf))}</div>`;
}

function orderForm(view: BreakerView, to: 'open' | 'close', csrf: string): Markup {
  const noteId = `breaker-note-${to}-${view.dependency}`;
  return actionForm(
    `/breakers/${encodeURIComponent(view.dependency)}/${to}`,
    csrf,
    html`<label for="${noteId}" class="visually-hidden">Note on the order to ${to} the breaker of ${view.dependency}</label><input id="${noteId}" name="note" maxlength="${maxNoteLength}" placeholder="reason (optional)"> <button type="submit" class="${to === 'open' ? 'danger' : 'secondary'}">${to === 'open' ? 'Hold open' : 'Close'}</button>`,
    { className: 'inline', ...(to === 'open' ? { confirm: `Hold the breaker of ${view.dependency} open? No attempt against it starts until it is closed.` } : {}) },
  );
}

/** The breakers' section of the overview; nothing when no preset names a dependency. */
export function breakersSection(views: readonly BreakerView[], user: ConsoleUser, csrf: string): Markup | string {
  if (views.length === 0) return '';
  const operator = user.role === 'operator';
  return html`<section aria-labelledby="breakers-h"><h2 id="breakers-h">Circuit breakers</h2>
<table><caption>One per dependency, shared by every worker: while open, no attempt against it starts and none uses up a retry</caption>
<thead><tr><th scope="col">Dependency</th><th scope="col">State</th><th scope="col">Since</th><th scope="col">Why</th><th scope="col">Last change</th>${operator ? html`<th scope="col">Order</th>` : ''}</tr></thead>
<tbody>${views.map((v) => {
    const last = v.changes.at(-1);
    return html`<tr data-breaker="${v.dependency}"${v.state === 'closed' ? '' : html` class="warn"`}><th scope="row">${v.dependency}</th>
<td><span class="status status-${v.state}">${v.state}</span>${v.forced ? html`<br><span class="meta">held open by ${v.forced.by ?? 'an operator'}</span>` : v.probeAt ? html`<br><span class="meta">probe at ${time(v.probeAt)}</span>` : v.suspect ? html`<br><span class="meta">a failure is counted: attempts take turns</span>` : ''}</td>
<td>${time(v.since)}</td><td>${v.why}</td><td>${last ? html`${last.from} → ${last.to}${last.by ? ` by ${last.by}` : ''}, ${time(last.at)}` : '–'}</td>${operator ? html`<td>${orderForms(v, csrf)}</td>` : ''}</tr>`;
  })}</tbody></table>
</section>`;
}

/** `POST /breakers/:dependency/{open,close}`, for operators. */
export function breakerRoutes({ jobs, config }: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  for (const [path, state] of [['open', 'open'], ['close', 'closed']] as const) {
    app.post(`/breakers/:dependency/${path}`, requireRole('operator'), async (c) => {
      const dependency = c.req.param('dependency');
      const field = (await c.req.parseBody()).note;
      const reason = typeof field === 'string' && field.trim() ? field : `${state === 'open' ? 'held open' : 'closed'} in the console`;
      try {
        const view = await jobs.breakers.order(dependency, state, { by: c.get('session').user.name, reason });
        return redirectWithNotice(c, '/', 'ok', `The breaker of ${dependency} is ${view.state}: ${view.why} (${c.get('session').user.name})`, config.secureCookies);
      } catch (err) {
        // Refused (bad input, no worker), or not taken in time: said on the page, as every action's outcome.
        return redirectWithNotice(c, '/', 'error', `${err instanceof InvalidOptionError || err instanceof BreakerNoWorkerError ? 'Nothing done: ' : ''}${describeError(err)}`, config.secureCookies);
      }
    });
  }
  return app;
}
