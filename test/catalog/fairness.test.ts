import assert from 'node:assert/strict';
import { z } from 'zod';
import { defineCatalog } from '../../src/catalog/catalog';
import { CatalogError } from '../../src/catalog/catalog-error';
import { defineJob, type JobDefinition } from '../../src/catalog/define-job';
import { prepareJob } from '../../src/catalog/prepare-job';
import { jobStartOptions } from '../../src/catalog/start-job';
import { planQueues } from '../../src/catalog/task-queues';
import { fairnessOfPriority } from '../../src/catalog/fairness';
import { flowControlOf, formatFlowControl, parseFairnessFlags } from '../../src/jobctl/cli-fairness';
import { UsageError } from '../../src/jobctl/cli-support';
import { formatJobRecord } from '../../src/client/format';
import { InvalidOptionError, InvalidPayloadError } from '../../src/shared/errors';
import { retrySchedule } from '../../src/shared/retry';
import { catalog as builtIn } from '../../src/jobs/catalog';
import { fairnessCatalog } from '../fixtures/fairness/catalog';
import { tenantWorkJob } from '../fixtures/limits/jobs';

const run = { run: { retry: retrySchedule('1s'), timeouts: { startToClose: '10s' } } };
const plain = defineJob({ type: 'plain', workflowType: 'plainWorkflow', description: 'no fairness', presets: run, mainPreset: 'run' });
const keyed = (fairness: (p: { k: string }) => { key: string; weight?: number }) =>
  defineJob({ type: 'keyed', workflowType: 'keyedWorkflow', description: 'keyed', presets: run, mainPreset: 'run', fairness });
const catalogOf = (...jobs: JobDefinition[]) => defineCatalog({ jobs, payloads: Object.fromEntries(jobs.map((j) => [j.type, z.object({ k: z.string() })])) as never });

function rejects(fn: () => unknown, kind: new (...args: never[]) => Error, pattern: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof kind, String(err));
    assert.match(err.message, pattern);
    return true;
  });
}

function catalogProblems(jobs: JobDefinition[]): string[] {
  try {
    catalogOf(...jobs);
    return [];
  } catch (err) {
    assert.ok(err instanceof CatalogError, String(err));
    return err.issues.map((i) => `${i.path}: ${i.message}`);
  }
}

describe('fairness keys and weights', () => {
  it('derives the key and weight from the payload; the enqueue overrides them', () => {
    const job = (options = {}) => prepareJob(fairnessCatalog, 'tenant-task', { tenant: 'acme', weight: 3, ms: 0 }, options).fairness;
    assert.deepEqual(job(), { key: 'acme', weight: 3 });
    assert.deepEqual(job({ fairnessKey: 'other' }), { key: 'other' }, "another key does not take the derived key's weight");
    assert.deepEqual(job({ fairnessKey: 'other', fairnessWeight: 0.5 }), { key: 'other', weight: 0.5 });
    assert.deepEqual(job({ fairnessWeight: 10 }), { key: 'acme', weight: 10 }, 'a weight alone weighs the derived key');
    assert.equal(prepareJob(catalogOf(plain), 'plain', { k: 'x' }).fairness, undefined);
    assert.deepEqual(prepareJob(catalogOf(plain), 'plain', { k: 'x' }, { fairnessKey: 't1' }).fairness, { key: 't1' });
  });

  it('sends them as the workflow priority, with the priority key', () => {
    const definition = fairnessCatalog.definition('tenant-task')!;
    const start = (input: { priority?: number; fairness?: { key: string; weight?: number } }) => jobStartOptions({ definition, payload: { tenant: 'acme', ms: 0 }, taskQueue: 'q', ...input }).priority;
    assert.deepEqual(start({}), { fairnessKey: 'acme' }, 'derived when the start gives none');
    assert.deepEqual(start({ priority: 1, fairness: { key: 'kept', weight: 2 } }), { priorityKey: 1, fairnessKey: 'kept', fairnessWeight: 2 });
    assert.equal(jobStartOptions({ definition: plain, payload: {}, taskQueue: 'q' }).priority, undefined, 'no priority at all when there is nothing to say');
  });

  it('refuses bad keys and weights before anything is enqueued, naming the field', () => {
    const prepare = (options: object) => () => prepareJob(fairnessCatalog, 'tenant-task', { tenant: 'acme', ms: 0 }, options);
    rejects(prepare({ fairnessKey: '' }), InvalidOptionError, /fairnessKey: must be a non-empty string/);
    rejects(prepare({ fairnessKey: 'é'.repeat(33) }), InvalidOptionError, /fairnessKey: must be at most 64 bytes of UTF-8 \(Temporal's limit\), got 66/);
    rejects(prepare({ fairnessKey: 'a\uD800' }), InvalidOptionError, /fairnessKey: is not valid Unicode text/);
    rejects(prepare({ fairnessKey: 'evil\nstatus:      failed' }), InvalidOptionError, /fairnessKey: must not contain control characters or line breaks, got U\+000A at index 4/);
    for (const key of ['a\rb', 'a\u0000', 'a\u001b[31m', 'a\u007f', 'a\u0085', 'a\u2028']) rejects(prepare({ fairnessKey: key }), InvalidOptionError, /fairnessKey: must not contain control characters/);
    rejects(prepare({ fairnessKey: '   ' }), InvalidOptionError, /fairnessKey: must not be only whitespace/);
    assert.doesNotThrow(prepare({ fairnessKey: 'tenant a' }));
    rejects(prepare({ fairnessWeight: Number.NaN, fairnessKey: 'a' }), InvalidOptionError, /fairnessWeight: .*got NaN/);
    assert.doesNotThrow(prepare({ fairnessKey: 'x'.repeat(64) }));
    for (const weight of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 1000.5, 0.0009, '2']) {
      rejects(prepare({ fairnessWeight: weight }), InvalidOptionError, /fairnessWeight: must be a number from 0\.001 to 1000 \(Temporal's range\)/);
    }
    assert.doesNotThrow(prepare({ fairnessWeight: 0.001 }));
    assert.doesNotThrow(prepare({ fairnessWeight: 1000 }));
    rejects(() => prepareJob(catalogOf(plain), 'plain', { k: 'x' }, { fairnessWeight: 2 }), InvalidOptionError, /fairnessWeight: weighs a fairness key, but there is none: give fairnessKey too \(plain derives none\)/);
  });

  it("refuses a payload the type's fairness throws on or derives a bad key or weight from, as an invalid payload", () => {
    const prepare = (fairness: (p: { k: string }) => { key: string; weight?: number }) => () => prepareJob(catalogOf(keyed(fairness)), 'keyed', { k: 'x' });
    rejects(prepare(() => { throw new Error('no tenant'); }), InvalidPayloadError, /payload: the job type's fairness threw: no tenant/);
    rejects(prepare(() => ({ key: '' })), InvalidPayloadError, /payload: the job type's fairness gave the key "", which must be a non-empty string/);
    rejects(prepare(() => ({ key: 'k'.repeat(65) })), InvalidPayloadError, /which must be at most 64 bytes/);
    rejects(prepare(() => ({ key: 'k', weight: 0 })), InvalidPayloadError, /payload: the job type's fairness gave the weight 0, which must be a number from 0\.001 to 1000/);
  });

  it('reads the key back from a workflow priority (the weight as sent, not as a 32-bit float)', () => {
    assert.equal(fairnessOfPriority(undefined), undefined);
    assert.equal(fairnessOfPriority({ priorityKey: 2 }), undefined);
    assert.deepEqual(fairnessOfPriority({ fairnessKey: 'k', fairnessWeight: Math.fround(0.3) }), { key: 'k', weight: 0.3 });
  });

  it('derives the built-in keys: send-email by recipient domain, sync-data by source', () => {
    const email = { subject: 's', body: 'b', userId: 'u' };
    assert.deepEqual(prepareJob(builtIn, 'send-email', { ...email, to: 'Ada@Example.COM' }).fairness, { key: 'example.com' });
    const longDomain = `${'a'.repeat(60)}.${'b'.repeat(60)}.com`;
    assert.equal(prepareJob(builtIn, 'send-email', { ...email, to: `x@${longDomain}` }).fairness?.key, longDomain.slice(-64), 'a long domain keeps its last 64 characters');
    assert.deepEqual(prepareJob(builtIn, 'sync-data', { source: 'crm-contacts' }).fairness, { key: 'crm-contacts' });
  });

  it('jobctl: --fairness-key and --fairness-weight are checked, naming the flag; types shows what a type declares', () => {
    assert.deepEqual(parseFairnessFlags({ fairnessKey: 'acme', fairnessWeight: '2.5' }), { fairnessKey: 'acme', fairnessWeight: 2.5 });
    rejects(() => parseFairnessFlags({ fairnessWeight: 'heavy' }), UsageError, /^jobs:usage: --fairness-weight: must be a number from 0\.001 to 1000 \(Temporal's range\), got "heavy"$/);
    rejects(() => parseFairnessFlags({ fairnessWeight: '' }), UsageError, /--fairness-weight: must be a number/);
    for (const notDecimal of ['0x10', 'Infinity', '1e2', ' 3', '-1']) rejects(() => parseFairnessFlags({ fairnessWeight: notDecimal }), UsageError, /--fairness-weight: must be a number/);
    assert.deepEqual(parseFairnessFlags({ fairnessWeight: '.5' }), { fairnessWeight: 0.5 });
    rejects(() => parseFairnessFlags({ fairnessKey: '' }), UsageError, /--fairness-key: must be a non-empty string/);
    assert.equal(formatFlowControl(flowControlOf(fairnessCatalog.definition('limited-task')!)), ' (fair by key, at most 4/s per key)');
    assert.equal(formatFlowControl(flowControlOf(plain)), '');
    assert.equal(formatFlowControl(flowControlOf(tenantWorkJob)), ' (at most 2 at once per key)');
    assert.equal(formatFlowControl(flowControlOf({ ...tenantWorkJob, queue: { name: 'q', rateLimit: 10 } })), ' (at most 2 at once per key, at most 10/s on its queue)');
    const record = { id: 'j', type: 'tenant-task', payload: {}, status: 'running', attempts: 1, maxAttempts: 2, createdAt: '2026-01-01T00:00:00.000Z' } as const;
    assert.match(formatJobRecord({ ...record, fairness: { key: 'acme\u001b[2J', weight: 3 } }), /^fairness: {4}acme\\u001b\[2J \(weight 3\)$/m, 'status shows the key, escaped for the terminal');
    assert.doesNotMatch(formatJobRecord(record), /fairness/);
  });
});

describe('limits.ratePerKey', () => {
  const queued = (limits: object, extra: object = {}) => ({ ...plain, queue: { name: 'own' }, limits, ...extra }) as JobDefinition;

  it('goes to the queue plan of a type with a queue of its own', () => {
    assert.equal(planQueues('tq', [queued({ ratePerKey: 5 })])[0]!.ratePerKey, 5);
    assert.throws(() => planQueues('tq', [queued({ ratePerKey: 5 }), { ...queued({ ratePerKey: 6 }), type: 'other' }]), /share task queue tq:own but declare different limits/);
  });

  it('is refused without a queue of its own, with local activities, or when not a positive rate', () => {
    assert.deepEqual(catalogProblems([{ ...plain, limits: { ratePerKey: 5 } }]), [
      "jobs.0 (plain).limits.ratePerKey: needs a task queue of the job type's own (queue: { name }): the server applies the rate to a whole queue's fairness keys, and on the shared queue it would limit every other type's jobs too",
    ]);
    assert.deepEqual(catalogProblems([queued({ ratePerKey: 5 }, { activity: 'local' })]), [
      "jobs.0 (plain).limits.ratePerKey: needs regular activities (activity: 'regular'): local activities never reach the task queue the server rate-limits",
    ]);
    for (const rate of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '5']) {
      assert.match(catalogProblems([queued({ ratePerKey: rate })])[0] ?? '', /^jobs\.0 \(plain\)\.limits\.ratePerKey: must be a number of starts per second per key, more than 0/);
    }
  });
});
