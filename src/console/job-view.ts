// The job page's markup: the record (what `jobctl status` shows), the activities of its latest
// run, the payload (hidden from viewers without payload access) and its dead-letter entry with
// the audit trail. Every value is interpolated through `html`, which escapes it.
import { html } from 'hono/html';
import { formatJobError } from '../client/format';
import type { JobRecord, JobStatus } from '../client/job-record';
import type { DeadLetterEntry } from '../workflow-kit/dead-letter-entries';
import type { JobActivities } from './job-activities';
import { actionForm, time, type Markup } from './layout';
import type { ConsoleUser } from './users';

/** What a viewer without payload access sees instead of a payload value. */
export const hiddenPayload = 'hidden (viewer)';

/** Statuses a job can still be cancelled in. */
const cancellable: readonly JobStatus[] = ['scheduled', 'running', 'retrying'];

/** A value that is part of a payload, as pretty JSON, or {@link hiddenPayload} for a viewer without payload access. */
export function payloadValue(user: ConsoleUser, value: unknown): Markup {
  if (!user.payloads) return html`<p class="hidden-payload">${hiddenPayload}</p>`;
  return html`<pre class="payload">${value === undefined ? '(none)' : JSON.stringify(value, null, 2)}</pre>`;
}

function row(label: string, value: Markup | string | number | undefined) {
  return value === undefined || value === '' ? '' : html`<dt>${label}</dt><dd>${value}</dd>`;
}

function stepText(r: JobRecord): string | undefined {
  if (!r.step) return undefined;
  return r.steps ? `${r.step} (${r.steps.indexOf(r.step) + 1} of ${r.steps.length}: ${r.steps.join(' → ')})` : r.step;
}

/** The record and the activities: the region that refreshes itself. */
export function recordView(r: JobRecord, activities: JobActivities, user: ConsoleUser, csrf: string, cancelUrl: string): Markup {
  const progress = r.progress && `${r.progress.done}${r.progress.total === undefined ? '' : `/${r.progress.total}`}${r.progress.unit ? ` ${r.progress.unit}` : ''}`;
  const compensation = r.compensation && `${r.compensation.status}${r.compensation.undone.length ? `; undid ${r.compensation.undone.join(', ')}` : '; nothing to undo'}`;
  const wait = r.configWait && html`for a setting its step needs, since ${time(r.configWait.since)} (costs no attempt); ${r.configWait.checks} check(s), next ${time(r.configWait.nextCheckAt)}`;
  return html`<section aria-labelledby="record-h"><h2 id="record-h">Record</h2>
<dl class="record">
${row('ID', html`<code class="job-id">${r.id}</code>`)}${row('Type', r.type)}${row('Status', html`<span class="status status-${r.status}">${r.status}</span>`)}
${row('Attempts', `${r.attempts} of ${r.maxAttempts}`)}${row('Step', stepText(r))}${row('Progress', progress)}${row('Compensation', compensation)}
${row('Run', r.run)}${row('Waiting', wait)}${row('Created', time(r.createdAt))}${row('Processed', r.processedAt && time(r.processedAt))}${row('Failed', r.failedAt && time(r.failedAt))}
${row('Error', r.error && html`<span class="error-text">${formatJobError(r.error)}</span>`)}
</dl>
${user.role === 'operator' && cancellable.includes(r.status) ? actionForm(cancelUrl, csrf, html`<button type="submit" class="danger">Cancel job</button>`, { confirm: 'Cancel this job? Its current attempt is cancelled and its completed steps are undone.', className: 'inline' }) : ''}
</section>
<section aria-labelledby="activities-h"><h2 id="activities-h">Activities of the latest run</h2>
${
  activities.activities.length === 0
    ? html`<p>No activity has been scheduled in this run yet.</p>`
    : html`<table><thead><tr><th scope="col">Activity</th><th scope="col">Kind</th><th scope="col">Attempts</th><th scope="col">Outcome</th><th scope="col">Last failure</th><th scope="col">Scheduled</th></tr></thead>
<tbody>${activities.activities.map(
        (a) => html`<tr><th scope="row">${a.activityType}</th><td>${a.local ? 'local' : 'activity'}</td><td>${a.attempts}</td><td><span class="status status-${a.outcome}">${a.outcome}</span></td><td>${a.lastFailure ? html`<span class="error-text">${formatJobError(a.lastFailure)}</span>` : '–'}</td><td>${time(a.at)}</td></tr>`,
      )}</tbody></table>`
}
<p class="meta">Temporal keeps only the last failure of a retried activity: the errors of earlier attempts are not recorded anywhere.${activities.truncated ? ' This run has a long history: only its first events were read here; the Web UI shows the rest.' : ''} Refreshes every 5 s.</p>
</section>`;
}

/** The job's dead-letter entry and its audit trail, or a line saying it has none. */
export function deadLetterView(entry: DeadLetterEntry | undefined, user: ConsoleUser): Markup {
  if (!entry) return html`<section aria-labelledby="dlq-h"><h2 id="dlq-h">Dead-letter entry</h2><p>This job has no dead-letter entry.</p></section>`;
  return html`<section aria-labelledby="dlq-h"><h2 id="dlq-h">Dead-letter entry</h2>
<dl class="record">
${row('Status', entry.status)}${row('Failures', entry.failures)}${row('Attempts (all runs)', entry.attempts)}
${row('First failed', time(entry.firstFailedAt))}${row('Last failed', time(entry.lastFailedAt))}
${row('Error', html`<span class="error-text">${entry.error.type ? `${entry.error.type}: ${entry.error.message}` : entry.error.message}</span>`)}${row('Fingerprint', html`<code>${entry.fingerprint}</code>`)}
</dl>
<table><caption>Audit trail, oldest first</caption><thead><tr><th scope="col">At</th><th scope="col">Action</th><th scope="col">Result</th><th scope="col">By</th><th scope="col">Detail</th><th scope="col">Patch</th></tr></thead>
<tbody>${entry.audit.map(
    (a) => html`<tr><td>${time(a.at)}</td><td>${a.action}</td><td>${a.result}</td><td>${a.by ?? '–'}</td><td>${a.detail ?? '–'}</td><td>${a.patch === undefined ? '–' : user.payloads ? html`<code>${JSON.stringify(a.patch)}</code>` : hiddenPayload}</td></tr>`,
  )}</tbody></table>
<p class="meta">Read when the page was loaded. <a href="/dead-letters/entry/${encodeURIComponent(entry.id)}">The entry, with its redrive and discard</a>.</p></section>`;
}

/** The job's history in the Temporal Web UI. */
export function webUiHref(ui: string, namespace: string, id: string, runId: string): string {
  return `${ui.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(id)}/${encodeURIComponent(runId)}/history`;
}
