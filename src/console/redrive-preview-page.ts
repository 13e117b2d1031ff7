// `GET /dead-letters/preview` (with `patch=` to check one): the page every console redrive goes
// through. It shows how many jobs and which, the ledger's plan of each (src/console/redrive-plan-view.ts),
// a JSON Merge Patch editor whose result is validated on the server with each issue at its field,
// and, for an operator, the redrive (one job; or a canary first, or all at a rate) and the discard.
// A check of a patch changes nothing.
import { Hono, type Context } from 'hono';
import { html } from 'hono/html';
import { requireRole } from './auth';
import type { ConsoleDeps, ConsoleEnv } from './context';
import { entryHref, payloadBlock } from './dead-letter-views';
import { readPatch, type FormFields, type PatchInput } from './form-input';
import { frameOf } from './frame';
import { actionForm, page, time, type Markup, type PageFrame } from './layout';
import { takeNotice } from './notices';
import { payloadFields, payloadFieldsTable } from './payload-fields';
import { refusal } from './refusal-page';
import { plansSection } from './redrive-plan-view';
import { readRedrivePreview, type RedrivePreview } from './redrive-preview';
import { describeSelection, readSelection, selectionInputs, selectionQuery } from './selection';

function idsSection(p: RedrivePreview): Markup {
  const more = p.count - p.ids.length;
  return html`<section aria-labelledby="ids-h"><h2 id="ids-h">Jobs (${p.count})</h2>
<ul class="ids">${p.ids.map((id) => html`<li><a href="${entryHref(id)}">${id}</a></li>`)}</ul>${more > 0 ? html`<p class="more">and ${more} more</p>` : ''}</section>`;
}

function patchEditor(frame: PageFrame, p: RedrivePreview): Markup {
  const { patch } = p;
  const jsonError = 'error' in patch.input ? patch.error : undefined;
  // A GET form: a check changes nothing, so its page can be reloaded and its URL shared.
  const form = html`<form method="get" action="/dead-letters/preview" class="patch-editor">${selectionInputs(p.selection)}<label for="patch">JSON Merge Patch of the payload</label>
<textarea id="patch" name="patch" spellcheck="false" placeholder='{"toAccount": "bob"}'${jsonError ? html` aria-invalid="true" aria-describedby="patch-error"` : ''}>${patch.input.text}</textarea>
${jsonError ? html`<p id="patch-error" class="field-error" role="alert">${jsonError}</p>` : ''}
${patch.error && !jsonError ? html`<p class="field-error" role="alert">${patch.error}</p>` : ''}
<button type="submit" class="secondary">Check the patch</button> <span class="meta">Validated against the ${p.selection.type} schema for every selected job; nothing restarts.</span></form>`;
  let result: Markup = html``;
  if (patch.payload !== undefined && patch.entryId !== undefined) {
    const caption = patch.ok ? `The payload ${patch.entryId} would start with` : `The patched payload of ${patch.entryId}, refused by the ${p.selection.type} schema`;
    result = html`${patch.ok ? html`<p class="notice ok" role="status">The patch is valid for all ${p.count} job(s).</p>` : html`<p class="notice error" role="alert">The patch is refused for ${patch.entryId}: fix the fields marked below. Nothing was restarted.</p>`}
${payloadFieldsTable(payloadFields(patch.payload, patch.issues), caption)}`;
  }
  return html`<section aria-labelledby="patch-h"><h2 id="patch-h">Patch</h2>${form}${result}</section>`;
}

function actions(frame: PageFrame, p: RedrivePreview): Markup {
  if (frame.user.role !== 'operator' || p.count === 0) return html``;
  const patchField = html`<input type="hidden" name="patch" value="${p.patch.input.text}">`;
  const back = html`<input type="hidden" name="back" value="/dead-letters/preview?${selectionQuery(p.selection)}">`;
  const hidden = html`${selectionInputs(p.selection)}${back}`;
  const reason = (id: string) => html`<div><label for="${id}">Reason (for the audit trail)</label><input id="${id}" name="reason" maxlength="500"></div>`;
  const discard = actionForm(
    '/dead-letters/discard',
    frame.csrf,
    html`${hidden}<div class="filters"><div><label for="discard-reason">Reason (required)</label><input id="discard-reason" name="reason" required maxlength="500"></div>
${p.selection.id === undefined ? html`<div><label for="discard-rate">Rate (per second)</label><input id="discard-rate" name="rate" value="20" size="5"></div>` : ''}
<div><button type="submit" class="danger">Discard ${p.selection.id ?? `all ${p.count}`}</button></div></div>`,
    { className: 'discard', confirm: `Discard ${p.count} job(s)? They will not run again.` },
  );
  if (!p.patch.ok) return html`<section aria-labelledby="act-h"><h2 id="act-h">Act</h2><p>Fix the patch (or clear it) to redrive.</p>${discard}</section>`;
  const redrive = p.selection.id !== undefined
    ? actionForm('/dead-letters/redrive', frame.csrf, html`${hidden}${patchField}<div class="filters">${reason('redrive-reason')}<div><button type="submit">Redrive ${p.selection.id}</button></div></div>`, { className: 'redrive' })
    : html`${actionForm('/dead-letters/canary', frame.csrf, html`${hidden}${patchField}<div class="filters">${reason('canary-reason')}<div><button type="submit">Redrive one first (canary)</button></div></div>`, { className: 'canary' })}
${actionForm(
        '/dead-letters/redrive',
        frame.csrf,
        html`${hidden}${patchField}<div class="filters">${reason('bulk-reason')}<div><label for="rate">Rate (per second, at most 100)</label><input id="rate" name="rate" value="5" size="5"></div>
<div><button type="submit">Redrive all ${p.count}</button></div></div>`,
        { className: 'redrive', confirm: `Redrive ${p.count} job(s)? Each runs every step again.` },
      )}`;
  return html`<section aria-labelledby="act-h"><h2 id="act-h">Act</h2>${redrive}${discard}</section>`;
}

async function render(c: Context<ConsoleEnv>, deps: ConsoleDeps, source: FormFields | Record<string, string>, patch: PatchInput): Promise<Response> {
  const frame = frameOf(c, 'Redrive preview', 'dead-letters');
  const p = await readRedrivePreview(deps, readSelection(source, deps.jobs.catalog?.types), patch);
  const summary = html`<p class="summary"><strong>${p.count}</strong> dead-lettered job(s): ${describeSelection(p.selection)}.</p>
<p class="meta">Entries that fail after ${time(p.selection.failedBefore)} are not part of this selection, nor of a redrive started from this page.</p>`;
  const example = p.first && p.patch.payload === undefined ? html`<section aria-labelledby="payload-h"><h2 id="payload-h">Payload of ${p.first.id}</h2>${payloadBlock(frame.user, p.first.payload)}</section>` : '';
  const editor = frame.user.role === 'operator' && p.count > 0 ? patchEditor(frame, p) : '';
  const body = html`${takeNotice(c)}${summary}${idsSection(p)}${plansSection(p.plans, p.count)}${example}${editor}${actions(frame, p)}`;
  return c.html(page(frame, body), p.patch.ok ? 200 : 422);
}

/** `GET /dead-letters/preview?type=…[&fingerprint|id|failedAfter|failedBefore][&patch=…]` (a patch: operators). */
export function redrivePreviewRoutes(deps: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.get('/dead-letters/preview', async (c) => {
    const query = c.req.query();
    const patch = readPatch(query);
    // A patched payload is an operator's to see, as the patch editor is.
    if (patch.text !== '' && c.get('session').user.role !== 'operator') return refusal(c, 403, `${c.get('session').user.name} is a viewer: checking a patch needs an operator`);
    return render(c, deps, query, patch);
  });
  // A page from before the check moved to GET: its form lands on the check's URL.
  app.post('/dead-letters/preview', requireRole('operator'), async (c) => {
    const form = await c.req.parseBody();
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(form)) if (key !== '_csrf' && typeof value === 'string') query.set(key, value);
    return c.redirect(`/dead-letters/preview?${query.toString()}`, 303);
  });
  return app;
}
