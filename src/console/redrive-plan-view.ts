// The ledger's step plans as markup: for each job, each step with what its failed execution
// recorded and what the redrive will do, a step done and not undone flagged loudly (it will take
// effect twice), and above them all one alert that says how many such steps there are.
import { html } from 'hono/html';
import type { RedrivePlan, StepPlan } from '../client/redrive-plan';
import { entryHref } from './dead-letter-views';
import { notice, time, type Markup } from './layout';

function recorded(s: StepPlan): Markup {
  if (s.doneAt && s.undoneAt) return html`done ${time(s.doneAt)}, undone by <code>compensate:${s.step}</code> ${time(s.undoneAt)}`;
  if (s.doneAt) return html`done ${time(s.doneAt)}; no <code>compensate:${s.step}</code>`;
  if (s.undoneAt) return html`no row; <code>compensate:${s.step}</code> ${time(s.undoneAt)}`;
  return html`no row`;
}

function planTable(plan: RedrivePlan): Markup {
  return html`<table class="compact plan" data-job="${plan.id}"><caption>Steps of <a href="${entryHref(plan.id)}">${plan.id}</a>${plan.execution ? html`, failed execution <code>${plan.execution}</code>` : ''}</caption>
<thead><tr><th scope="col">Step</th><th scope="col">The ledger recorded</th><th scope="col">The redrive</th></tr></thead>
<tbody>${plan.steps.map(
    (s) => html`<tr data-step="${s.step}" data-fate="${s.fate}"${s.fate === 'done-not-undone' ? html` class="double-effect"` : ''}><th scope="row">${s.step}</th><td>${recorded(s)}</td>
<td>${s.fate === 'done-not-undone' ? html`<strong class="field-error">⚠ ${s.effect} (a double effect)</strong>` : s.effect}</td></tr>`,
  )}</tbody></table>`;
}

/** The plans of the previewed jobs, `of` the selection's `count`. */
export function plansSection(plans: readonly RedrivePlan[], count: number): Markup {
  if (plans.length === 0) return html``;
  const doubled = plans.flatMap((p) => p.doubleEffects.map((step) => `${p.id}: ${step}`));
  const problems = [...new Set(plans.map((p) => p.problem).filter((p): p is string => p !== undefined))];
  const heading = plans.length < count ? `What the ledger recorded, for the first ${plans.length} of ${count} jobs` : 'What the ledger recorded';
  return html`<section aria-labelledby="plan-h"><h2 id="plan-h">${heading}</h2>
<p>A redrive starts a <strong>new execution</strong>: the ledger runs each step once per execution, so <strong>every step runs again</strong>. A step its compensation undid starts from a clean slate; a step done and not undone takes effect a second time.</p>
${doubled.length > 0 ? notice('error', html`<strong>${doubled.length} step(s) done and not undone: they will run again.</strong> ${doubled.join(', ')}. Undo their effects by hand, or discard instead.`) : ''}
${problems.map((p) => notice('info', p))}
${plans.map(planTable)}
<p class="meta">Only steps that record to the ledger are known here; a step with effects outside it (an email sent, a file written) may have had them.</p></section>`;
}
