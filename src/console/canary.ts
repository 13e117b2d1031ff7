// The canary: redrive one job of a group first and watch it (`POST /dead-letters/canary`, then
// `GET /dead-letters/canary`, its status refreshing as it runs), and only once it has completed
// offer the rest of the group at a rate, as a bulk task. The rest is redriven the way the canary was
// (its patch, read back from the canary's audit record; a reason of its own) and is the group as it
// stood when the canary went: a job that fails after that, the canary included, is not chased.
import { maskEntry } from '../client/masked-entry';
import { Hono } from 'hono';
import { html } from 'hono/html';
import type { JobStatus } from '../client/job-record';
import { requireRole } from './auth';
import { pinned, scanSelection } from './bulk-work';
import type { ConsoleDeps, ConsoleEnv } from './context';
import { entryHref, jobHref } from './dead-letter-views';
import { patchValue, readBack, readPatch, readReason } from './form-input';
import { frameOf } from './frame';
import { actionForm, live, notice, page, type Markup } from './layout';
import { redirectWithError, takeNotice } from './notices';
import { describeSelection, readSelection, selectionInputs, selectionQuery, type ConsoleSelection } from './selection';

const settled: readonly JobStatus[] = ['completed', 'failed', 'cancelled', 'terminated', 'timed-out'];

/** The canary page of a selection (pinned), its canary job and the run the redrive started. */
export function canaryHref(selection: ConsoleSelection, canary: string, run: string): string {
  return `/dead-letters/canary?${selectionQuery(selection)}&${new URLSearchParams({ canary, run }).toString()}`;
}

/** The canary's routes. */
export function canaryRoutes(deps: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const { jobs, config } = deps;

  app.post('/dead-letters/canary', requireRole('operator'), async (c) => {
    const form = await c.req.parseBody();
    let selection: ConsoleSelection | undefined;
    try {
      selection = pinned(readSelection(form, jobs.catalog?.types));
      if (selection.id !== undefined) throw new Error('a canary is one job of a group or selection: redrive a single job from its preview');
      const patch = patchValue(readPatch(form));
      const [first] = (await jobs.deadLetters.page({ ...selection, limit: 1 })).entries;
      if (!first) throw new Error(`no ${describeSelection(selection)} is dead-lettered`);
      const { runId } = await jobs.deadLetters.redrive(first.id, { patch, reason: readReason(form, false), by: c.get('session').user.name });
      // No notice of its own: the page's status line says what became of the canary, one outcome at a time.
      return c.redirect(canaryHref(selection, first.id, runId), 303);
    } catch (err) {
      return redirectWithError(c, readBack(form, selection ? `/dead-letters/preview?${selectionQuery(selection)}` : '/dead-letters'), err, config.secureCookies);
    }
  });

  app.get('/dead-letters/canary', async (c) => {
    const frame = frameOf(c, 'Canary redrive', 'dead-letters');
    const selection = readSelection(c.req.query(), jobs.catalog?.types);
    const canary = c.req.query('canary') ?? '';
    const run = c.req.query('run') ?? '';
    const [record, entry] = await Promise.all([jobs.get(canary), jobs.deadLetters.show(canary, selection.type).then((e) => maskEntry(e, jobs.catalog))]);
    const redrive = [...entry.audit].reverse().find((r) => r.action === 'redrive' && r.result === `started run ${run}`);
    const self = canaryHref(selection, canary, run);
    const head = html`<p>Canary <a href="${jobHref(canary)}">${canary}</a> (run <code>${run}</code>) of ${describeSelection(selection)}: <strong class="canary-status" data-status="${record.status}">${record.status}</strong></p>`;
    let body: Markup;
    if (!settled.includes(record.status)) {
      body = live('canary-live', self, html`${head}<p class="meta">Refreshes every 2 s until it ends.</p>`, 2);
    } else if (record.status !== 'completed') {
      const error = record.error ? `: ${record.error.type ? `${record.error.type}: ` : ''}${record.error.message}` : '';
      body = html`<div id="canary-live">${head}${notice('error', `The canary did not complete (${record.status}${error}). Fix the cause before redriving the rest.`)}<p><a href="${entryHref(canary)}">Its dead-letter entry</a></p></div>`;
    } else {
      const remaining = await scanSelection(deps, selection);
      const rest = frame.user.role !== 'operator' || remaining === 0
        ? html`<p>${remaining === 0 ? 'Nothing else of the group is dead-lettered.' : `${remaining} more are dead-lettered; an operator may redrive them.`}</p>`
        : actionForm(
            '/dead-letters/redrive',
            frame.csrf,
            html`${selectionInputs(selection)}<input type="hidden" name="back" value="${self}">
<input type="hidden" name="patch" value="${redrive?.patch === undefined ? '' : JSON.stringify(redrive.patch)}">
<p><label for="reason">Reason for the rest (optional)</label> <input id="reason" name="reason" size="40" maxlength="500" placeholder="${redrive?.detail ? `the canary's: ${redrive.detail}` : ''}"></p>
<label for="rate">Redrive the remaining <span class="remaining">${remaining}</span> at</label> <input id="rate" name="rate" value="5" size="5"> /s
<button type="submit">Redrive the remaining ${remaining}</button>`,
            { className: 'redrive-rest' },
          );
      body = html`<div id="canary-live">${head}${notice('ok', 'The canary completed.')}${redrive?.patch === undefined ? '' : html`<p class="meta">The rest get the canary's patch too.</p>`}${rest}</div>`;
    }
    return c.html(page(frame, html`${takeNotice(c)}${body}`));
  });
  return app;
}
