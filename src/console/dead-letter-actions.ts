// `POST /dead-letters/redrive` and `POST /dead-letters/discard`, for operators: one job at once, or
// a group or selection as a bulk task (paced, on the server, pinned to what had failed when it was
// asked for). Every operation records the signed-in user as `by` in the entry's audit trail. After
// an action the browser is sent back (303) with a notice; a refused one changes nothing and says
// why, naming the field.
import { Hono, type Context } from 'hono';
import { requireRole } from './auth';
import { pinned, scanSelection, startDiscardTask, startRedriveTask } from './bulk-work';
import type { ConsoleDeps, ConsoleEnv } from './context';
import { entryHref } from './dead-letter-views';
import { patchValue, readBack, readPatch, readRate, readReason, type FormFields } from './form-input';
import { redirectWithError, redirectWithNotice } from './notices';
import { describeSelection, readSelection, selectionQuery, type ConsoleSelection } from './selection';

/** Runs an action; whatever it throws goes back to the form's page as an error notice. */
async function act(c: Context<ConsoleEnv>, deps: ConsoleDeps, run: (form: FormFields, back: (s?: ConsoleSelection) => string) => Promise<Response>): Promise<Response> {
  const form = await c.req.parseBody();
  const back = (s?: ConsoleSelection) => readBack(form, s ? `/dead-letters/preview?${selectionQuery(s)}` : '/dead-letters');
  try {
    return await run(form, back);
  } catch (err) {
    return redirectWithError(c, back(), err, deps.config.secureCookies);
  }
}

/** The redrive and discard actions. */
export function deadLetterActionRoutes(deps: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const { jobs, config } = deps;
  const ok = (c: Context<ConsoleEnv>, to: string, text: string) => redirectWithNotice(c, to, 'ok', text, config.secureCookies);

  app.post('/dead-letters/redrive', requireRole('operator'), (c) =>
    act(c, deps, async (form) => {
      const by = c.get('session').user.name;
      const selection = readSelection(form, jobs.catalog?.types);
      const patch = patchValue(readPatch(form));
      const reason = readReason(form, false);
      if (selection.id !== undefined) {
        const { runId } = await jobs.deadLetters.redrive(selection.id, { patch, reason, by });
        return ok(c, entryHref(selection.id), `Redriven ${selection.id}: run ${runId} started${patch === undefined ? '' : ' with the patch'}.`);
      }
      const ratePerSecond = readRate(form);
      const snapshot = pinned(selection);
      const count = await scanSelection(deps, snapshot, patch);
      if (count === 0) throw new Error(`nothing to redrive: no ${describeSelection(snapshot)} is dead-lettered`);
      const task = startRedriveTask(deps, snapshot, count, { by, ratePerSecond, reason, patch });
      return ok(c, '/tasks', `Started: ${task.title}.`);
    }),
  );

  app.post('/dead-letters/discard', requireRole('operator'), (c) =>
    act(c, deps, async (form) => {
      const by = c.get('session').user.name;
      const selection = readSelection(form, jobs.catalog?.types);
      const reason = readReason(form, true);
      if (selection.id !== undefined) {
        await jobs.deadLetters.discard(selection.id, { reason, by });
        return ok(c, entryHref(selection.id), `Discarded ${selection.id}.`);
      }
      const ratePerSecond = readRate(form);
      const snapshot = pinned(selection);
      const count = await scanSelection(deps, snapshot);
      if (count === 0) throw new Error(`nothing to discard: no ${describeSelection(snapshot)} is dead-lettered`);
      const task = startDiscardTask(deps, snapshot, count, { by, ratePerSecond, reason });
      return ok(c, '/tasks', `Started: ${task.title}.`);
    }),
  );
  return app;
}
