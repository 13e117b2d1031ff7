// The job page: one job's record and the activities of its latest run (refreshing themselves),
// its payload, its dead-letter entry with the audit trail, and a link to its history in the
// Temporal Web UI; and cancelling it, for an operator.
import { maskEntry } from '../client/masked-entry';
import { Hono } from 'hono';
import { html } from 'hono/html';
import { DeadLetterError, type DeadLetterQueue } from '../client/dead-letters';
import type { JobRecord } from '../client/job-record';
import { describeError, ErrorType, JobClosedError, JobNotFoundError } from '../shared/errors';
import type { DeadLetterEntry } from '../workflow-kit/dead-letter-entries';
import { requireRole } from './auth';
import type { ConsoleDeps, ConsoleEnv } from './context';
import { redirectWithNotice, takeNotice } from './notices';
import { frameOf } from './frame';
import { readJobActivities } from './job-activities';
import { deadLetterView, payloadValue, recordView, webUiHref } from './job-view';
import { jobHref } from './jobs-list';
import { live, page } from './layout';

/** The job's dead-letter entry, or `undefined` if it has none. */
async function deadLetterEntry(deadLetters: DeadLetterQueue, id: string): Promise<DeadLetterEntry | undefined> {
  try {
    return maskEntry(await deadLetters.show(id), deadLetters.catalog);
  } catch (err) {
    if (err instanceof DeadLetterError && err.type === ErrorType.DlqEntryNotFound) return undefined;
    throw err;
  }
}

/** `GET /jobs/:id` and, for operators, `POST /jobs/:id/cancel`. */
export function jobPageRoutes({ jobs, config }: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.get('/jobs/:id', async (c) => {
    const id = c.req.param('id');
    const { user, csrf } = c.get('session');
    let record: JobRecord;
    try {
      record = await jobs.get(id);
    } catch (err) {
      if (!(err instanceof JobNotFoundError)) throw err;
      const body = html`${takeNotice(c)}<p class="notice error" role="alert">No job has the ID <code class="job-id">${id}</code>: it was never enqueued here, or Temporal's retention period has removed it.</p><p><a href="/jobs">All jobs</a></p>`;
      return c.html(page(frameOf(c, 'Job not found', 'jobs'), body), 404);
    }
    const activities = await readJobActivities(jobs.temporal, id);
    const region = live('job-live', jobHref(id), recordView(record, activities, user, csrf, `${jobHref(id)}/cancel`));
    // A refresh swaps in the region alone: the dead-letter entry and the payload are not read again.
    if (c.req.header('hx-request') !== undefined) return c.html(region);
    const entry = await deadLetterEntry(jobs.deadLetters, id);
    const ui = config.temporalUiUrl && webUiHref(config.temporalUiUrl, jobs.temporal.options.namespace, id, activities.runId);
    const body = html`${takeNotice(c)}
<p class="links"><a href="/jobs">All jobs</a>${ui ? html` · <a href="${ui}" class="web-ui" rel="noopener noreferrer">History in the Temporal Web UI</a>` : ''}</p>
${region}
<section aria-labelledby="payload-h"><h2 id="payload-h">Payload</h2>${payloadValue(user, record.payload)}</section>
${deadLetterView(entry, user)}`;
    return c.html(page(frameOf(c, `Job ${id}`, 'jobs'), body));
  });
  app.post('/jobs/:id/cancel', requireRole('operator'), async (c) => {
    const id = c.req.param('id');
    try {
      await jobs.cancel(id);
    } catch (err) {
      if (err instanceof JobClosedError || err instanceof JobNotFoundError) return redirectWithNotice(c, jobHref(id), 'error', `Not cancelled: ${describeError(err)}`, config.secureCookies);
      throw err;
    }
    return redirectWithNotice(c, jobHref(id), 'ok', `Cancellation requested by ${c.get('session').user.name}: the current attempt is cancelled and completed steps are undone; the job ends as cancelled.`, config.secureCookies);
  });
  return app;
}
