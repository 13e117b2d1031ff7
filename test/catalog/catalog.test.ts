import assert from 'node:assert/strict';
import { z } from 'zod';
import { defineCatalog } from '../../src/catalog/catalog';
import { CatalogError } from '../../src/catalog/catalog-error';
import { prepareJob } from '../../src/catalog/prepare-job';
import { validateRedrivePayload } from '../../src/catalog/validate';
import { InvalidPayloadError } from '../../src/shared/errors';
import { defineJob, type JobDefinition } from '../../src/catalog/define-job';
import { retrySchedule } from '../../src/shared/retry';
import { catalog as builtIn } from '../../src/jobs/catalog';

const ping = defineJob({
  type: 'ping',
  workflowType: 'pingWorkflow',
  description: 'ping',
  presets: { run: { retry: retrySchedule('1s', '5s'), timeouts: { startToClose: '10s' } } },
  mainPreset: 'run',
});
const payload = z.object({});

/** The problems defineCatalog names for these jobs (and a schema per job unless given). */
function problems(jobs: readonly JobDefinition[], payloads?: Record<string, z.ZodType>): string[] {
  try {
    defineCatalog({ jobs, payloads: (payloads ?? Object.fromEntries(jobs.map((j) => [j.type, payload]))) as never });
    return [];
  } catch (err) {
    assert.ok(err instanceof CatalogError, String(err));
    return err.issues.map((i) => `${i.path}: ${i.message}`);
  }
}

// A definition the SDK refuses only when a workflow schedules its step fails that workflow task
// again and again: the job stays running and never reaches the DLQ. The catalog refuses it at start.
describe('defineCatalog checks', () => {
  it('accepts the built-in catalog', () => {
    assert.equal(builtIn.types.length, 5);
  });

  it('refuses an empty catalog', () => {
    assert.deepEqual(problems([]), ['jobs: must list at least one job type (defineJob)']);
  });

  it('names durations the SDK would refuse, in the retry schedule and the timeouts', () => {
    const bad = { ...ping, presets: { run: { retry: retrySchedule('1s', 'banana' as never), timeouts: { startToClose: '-1s', heartbeat: '0s' } } } };
    assert.deepEqual(problems([bad]), [
      "jobs.0 (ping).presets.run.timeouts.startToClose: must be a duration of more than 0, such as '30s', '5m' or 1500 (ms)",
      "jobs.0 (ping).presets.run.timeouts.heartbeat: must be a duration of more than 0, such as '30s', '5m' or 1500 (ms)",
      "jobs.0 (ping).presets.run.retry.delays.1: must be a duration of more than 0, such as '30s', '5m' or 1500 (ms)",
    ]);
  });

  it('names queue limits a worker could not apply', () => {
    const bad = { ...ping, queue: { name: 'pings', concurrency: 0, rateLimit: -1 } };
    const found = problems([bad]);
    assert.ok(found.includes('jobs.0 (ping).queue.concurrency: must be a whole number of at least 1'), found.join('\n'));
    assert.ok(found.includes('jobs.0 (ping).queue.rateLimit: must be a number of activity attempts per second, more than 0'), found.join('\n'));
  });

  it('names a bad type name once, not again as a schema without a type', () => {
    const bad = { ...ping, type: 'Resize Image!' };
    const found = problems([bad], { 'Resize Image!': payload });
    assert.equal(found.length, 1, found.join('\n'));
    assert.match(found[0]!, /^jobs\.0 \(Resize Image!\)\.type: must be 1 to 64 characters of lower-case letters/);
  });

  it('names a duplicate type, a duplicate workflow, a missing schema and an unknown main preset', () => {
    const twin = { ...ping, workflowType: 'otherWorkflow' };
    const sameWorkflow = { ...ping, type: 'pong' };
    assert.ok(problems([ping, twin]).some((p) => /type: job type ping is defined twice/.test(p)));
    assert.ok(problems([ping, sameWorkflow]).some((p) => /workflowType: pingWorkflow is already the workflow of ping/.test(p)));
    assert.deepEqual(problems([ping], {}), ['payloads.ping: is missing: every job type needs its payload schema']);
    assert.ok(problems([{ ...ping, mainPreset: 'mian' } as never]).some((p) => /mainPreset: names no preset/.test(p)));
  });
});

describe('prepareJob: an ID derived from the payload', () => {
  const keyed = (idempotencyKey: (p: { name: string }) => string) =>
    defineCatalog({
      jobs: [defineJob({ ...ping, idempotencyKey })],
      payloads: { ping: z.object({ name: z.string() }) },
    });
  const issue = (run: () => unknown) => {
    try {
      run();
      return '';
    } catch (err) {
      assert.ok(err instanceof InvalidPayloadError, String(err));
      return err.message;
    }
  };

  it('is held to the rules of a chosen ID', () => {
    const catalog = keyed((p) => `crm:${p.name}`);
    assert.equal(prepareJob(catalog, 'ping', { name: 'a1' }).id, 'crm:a1');
    assert.match(issue(() => prepareJob(catalog, 'ping', { name: 'a b' })), /payload: derives the job ID "crm:a b" \(idempotencyKey\), which must be 1 to 200 characters/);
    assert.match(issue(() => prepareJob(catalog, 'ping', { name: 'x'.repeat(250) })), /derives the job ID "crm:x{56}…"/);
    assert.match(issue(() => prepareJob(keyed(() => ''), 'ping', { name: 'a' })), /derives the job ID ""/);
  });

  it('names a key function that throws, and is not asked when the caller chooses the ID', () => {
    const catalog = keyed(() => {
      throw new Error('no key');
    });
    assert.match(issue(() => prepareJob(catalog, 'ping', { name: 'a' })), /the job type's idempotencyKey threw: no key/);
    assert.equal(prepareJob(catalog, 'ping', { name: 'a' }, { id: 'chosen' }).id, 'chosen');
  });
});

describe('validateRedrivePayload: a patch that changes what the job ID derives from', () => {
  it('names the field that changed the ID (payload.paymentId), not the whole payload', () => {
    const payment = { paymentId: 'p-1', fromAccount: 'alice', toAccount: 'nobody', amount: 100, currency: 'EUR' };
    try {
      validateRedrivePayload(builtIn, 'process-payment', payment, { paymentId: 'p-2', toAccount: 'bob' });
      assert.fail('the patch was accepted');
    } catch (err) {
      assert.ok(err instanceof InvalidPayloadError, String(err));
      assert.deepEqual(err.issues.map((i) => i.path), ['payload.paymentId']);
      assert.match(err.message, /payload\.paymentId: a redrive must not change what the job ID derives from \(payment:p-1 would become payment:p-2\)/);
    }
    assert.deepEqual(validateRedrivePayload(builtIn, 'process-payment', payment, { toAccount: 'bob' }), { ...payment, toAccount: 'bob' });
  });

  it('names an ID change beside the schema’s problems, not only once they are fixed', () => {
    const payment = { paymentId: 'p-1', fromAccount: 'alice', toAccount: 'nobody', amount: 100, currency: 'EUR' };
    try {
      validateRedrivePayload(builtIn, 'process-payment', payment, { paymentId: 'p-2', amount: 'x', typo: 1 });
      assert.fail('the patch was accepted');
    } catch (err) {
      assert.ok(err instanceof InvalidPayloadError, String(err));
      assert.deepEqual(err.issues.map((i) => i.path).sort(), ['payload', 'payload.amount', 'payload.paymentId'], err.message);
      assert.match(err.message, /payload\.paymentId: a redrive must not change what the job ID derives from/);
      assert.match(err.message, /payload: Unrecognized key: "typo"/);
    }
  });
});
