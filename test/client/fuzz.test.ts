import assert from 'node:assert/strict';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import fc from 'fast-check';
import { main as jobctl } from '../../src/jobctl/cli';
import { JobClient } from '../../src/client/job-client';
import { catalog, type BuiltInJobType as JobType } from '../../src/jobs/catalog';
import { InvalidOptionError, InvalidPayloadError, UnknownJobTypeError, type FieldIssue } from '../../src/shared/errors';
import { maxJobIdLength } from '../../src/shared/limits';
import { startDevServerEnv, uniqueId } from '../helpers/env';

// Property-based: generated payloads, IDs and delays, valid and hostile, for every job type, through
// JobClient.enqueue against a real server with no worker. FUZZ_RUNS raises the number of cases.
const numRuns = Number(process.env.FUZZ_RUNS ?? 15);

type Payload = Record<string, unknown>;
/** A payload change that makes it invalid, the field the error must name, and what its message must say. */
type Mutation = { field: string; apply: (p: Payload) => Payload; says?: string };

const word = fc.stringMatching(/^[a-z0-9]{1,12}$/);
const text = (max: number) => fc.string({ unit: 'grapheme', minLength: 1, maxLength: max }).filter((s) => !/[\r\n]/.test(s) && s.trim().length > 0);
const account = fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/);
const isoDay = fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2099, 0, 1) }).map((ms) => new Date(ms - (ms % 86_400_000)));
const day = (d: Date) => d.toISOString().slice(0, 10);

const valid: Record<JobType, fc.Arbitrary<Payload>> = {
  'send-email': fc.record({
    to: fc.tuple(word, word).map(([a, b]) => `${a}@${b}.example.com`),
    subject: text(200),
    body: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 500 }),
    userId: account,
  }),
  'process-payment': fc
    .record({
      paymentId: fc.stringMatching(/^[A-Za-z0-9._:@/+=-]{1,60}$/),
      fromAccount: account,
      toAccount: account,
      amount: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
      currency: fc.stringMatching(/^[A-Z]{3}$/),
    })
    .filter((p) => p.fromAccount !== p.toAccount),
  'generate-report': fc
    .record({ from: isoDay, days: fc.integer({ min: 1, max: 366 }), format: fc.constantFrom('csv', 'json'), name: fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,40}$/) })
    .map(({ from, days, ...rest }) => ({ ...rest, from: day(from), to: day(new Date(from.getTime() + days * 86_400_000)) })),
  noop: fc.record({ failAttempts: fc.integer({ min: 0, max: 3 }) }),
  'sync-data': fc.record({
    source: fc.stringMatching(/^[a-z0-9-]{1,64}$/),
    pageSize: fc.integer({ min: 1, max: 1000 }),
    pagesPerRun: fc.integer({ min: 1, max: 10_000 }),
  }),
};

const hostileText = fc.oneof(
  text(50).map((s) => `${s}\r\nBcc: victim@example.com`),
  text(50).map((s) => `${s}\ninjected`),
  text(50).map((s) => `\ud800${s}`),
  fc.integer(),
  fc.constant(null),
  fc.constant(''),
);
const set = (field: string, value: unknown): Mutation => ({ field, apply: (p) => ({ ...p, [field]: value }) });
const drop = (field: string): Mutation => ({ field, apply: ({ [field]: _, ...rest }) => rest });

const hostile: Record<JobType, fc.Arbitrary<Mutation>> = {
  'send-email': fc.oneof(
    hostileText.map((v) => set('subject', v)),
    hostileText.map((v) => set('userId', v)),
    fc.constantFrom('not-an-address', 'a@', '@b.com', 'a b@c.com', 'ada@example.com\r\nBcc: x@y.z').map((v) => set('to', v)),
    fc.string({ minLength: 999, maxLength: 1200 }).filter((s) => !/[\r\n]/.test(s) && s.trim().length > 998).map((v) => set('subject', v)),
    fc.constant(drop('to')),
    fc.constant(drop('userId')),
    // An unknown key is an issue of the payload itself, whose message names the key.
    fc.string({ minLength: 1, maxLength: 20 }).filter((k) => !['to', 'subject', 'body', 'template', 'userId'].includes(k)).map((k): Mutation => ({ field: '', apply: (p) => ({ ...p, [k]: 1 }), says: k })),
  ),
  'process-payment': fc.oneof(
    fc.constantFrom('has space', 'tab\t', 'ünïcode', 'a\u202eb', '', 'x'.repeat(129)).map((v) => set('paymentId', v)),
    fc.oneof(fc.constantFrom(0, -1, 1.5, Number.MAX_SAFE_INTEGER + 2, Number.NaN), fc.string()).map((v) => set('amount', v)),
    fc.constantFrom('eur', 'EURO', 'E1R', '').map((v) => set('currency', v)),
    hostileText.map((v) => set('fromAccount', v)),
    fc.constant<Mutation>({ field: 'toAccount', apply: (p) => ({ ...p, toAccount: p.fromAccount }) }),
  ),
  'generate-report': fc.oneof(
    fc.constantFrom('yesterday', '2026-13-01', '2026-02-30T25:00:00Z', '').map((v) => set('from', v)),
    fc.constantFrom('.hidden', '../escape', 'a/b', 'x'.repeat(101)).map((v) => set('name', v)),
    fc.constantFrom('pdf', '', 'CSV').map((v) => set('format', v)),
    fc.constant(set('accounts', [])),
    fc.constant<Mutation>({ field: 'to', apply: (p) => ({ ...p, to: p.from }) }),
  ),
  noop: fc.oneof(
    fc.constantFrom(-1, 4, 1.5, '1', null).map((v) => set('failAttempts', v)),
    fc.string({ minLength: 1, maxLength: 20 }).filter((k) => k !== 'failAttempts').map((k): Mutation => ({ field: '', apply: (p) => ({ ...p, [k]: 1 }), says: k })),
  ),
  'sync-data': fc.oneof(
    fc.constantFrom('Upper', 'has space', '', 'x'.repeat(65), 'a/b').map((v) => set('source', v)),
    fc.constantFrom(0, -5, 2.5, '10').map((v) => set('pageSize', v)),
    fc.constantFrom(0, 10_001).map((v) => set('pagesPerRun', v)),
  ),
};

const badId = fc.oneof(
  fc.constantFrom('', 'has space', 'tab\tid', 'bell\u0007', 'esc\u001b[31mred', 'rtl\u202eexe.txt', 'lone\ud800', 'zero\u200bwidth', 'x'.repeat(maxJobIdLength + 1)),
  fc.string({ minLength: 1, maxLength: 20 }).filter((s) => /[^A-Za-z0-9._:@/+=-]/.test(s)),
);
const badDelay = fc.oneof(fc.constantFrom('-5s', 'soon', '5 parsecs', '', '366d', '9999999d'), fc.integer({ max: -1 }), fc.double({ noNaN: false }).filter((n) => !(Number.isFinite(n) && n >= 0 && n <= 365 * 86_400_000)));

/** The error is one of the named input errors, and one of its issues names `path` (and says `says`). */
function assertNames(err: unknown, path: string, says?: string): void {
  const issues: FieldIssue[] | undefined = err instanceof InvalidPayloadError || err instanceof InvalidOptionError ? err.issues : undefined;
  assert.ok(issues, `expected a named input error, got ${String(err)}`);
  assert.ok(
    issues.some((i) => (i.path === path || i.path.startsWith(`${path}.`)) && (says === undefined || i.message.includes(says))),
    `expected an issue naming ${path}${says ? ` that says ${says}` : ''}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
  );
}

describe('fuzzing enqueue (fast-check)', function () {
  this.timeout(600_000);
  let env: TestWorkflowEnvironment;
  let jobs: JobClient;
  before(async () => {
    env = await startDevServerEnv();
    jobs = new JobClient(env.client, { catalog, taskQueue: uniqueId('fuzz') });
  });
  after(() => env?.teardown());

  const startedNothing = async (id: string) => {
    await assert.rejects(jobs.temporal.workflow.getHandle(id).describe(), WorkflowNotFoundError, `${id} must not have reached Temporal`);
  };

  for (const type of Object.keys(valid) as JobType[]) {
    it(`${type}: accepts every valid payload, ID and delay`, async () => {
      await fc.assert(
        fc.asyncProperty(valid[type], fc.option(fc.stringMatching(/^[A-Za-z0-9._:@/+=-]{1,200}$/), { nil: undefined }), fc.option(fc.integer({ min: 0, max: 365 * 86_400_000 }), { nil: undefined }), async (payload, id, delay) => {
          const chosen = id === undefined ? undefined : `${uniqueId('f')}-${id}`.slice(0, maxJobIdLength);
          const result = await jobs.enqueue(type, payload as never, { id: chosen, delay });
          assert.equal(result.existed, false);
          if (chosen !== undefined) assert.equal(result.id, chosen);
          await jobs.temporal.workflow.getHandle(result.id).terminate('fuzz case accepted');
        }),
        { numRuns },
      );
    });

    it(`${type}: rejects each hostile payload naming the field, and starts nothing`, async () => {
      await fc.assert(
        fc.asyncProperty(valid[type], hostile[type], async (payload, mutation) => {
          const id = uniqueId('hostile');
          const err = await jobs.enqueue(type, mutation.apply(payload) as never, { id }).then(() => undefined, (e: unknown) => e);
          assertNames(err, mutation.field ? `payload.${mutation.field}` : 'payload', mutation.says);
          await startedNothing(id);
        }),
        { numRuns },
      );
    });

    it(`${type}: rejects hostile IDs and delays naming the option, and starts nothing`, async () => {
      await fc.assert(
        fc.asyncProperty(valid[type], fc.oneof(badId.map((id) => ({ id })), badDelay.map((delay) => ({ delay, id: uniqueId('delay') }))), async (payload, options) => {
          const err = await jobs.enqueue(type, payload as never, options as { id: string }).then(() => undefined, (e: unknown) => e);
          assertNames(err, 'delay' in options ? 'delay' : 'id');
          if ('delay' in options) await startedNothing(options.id);
        }),
        { numRuns },
      );
    });
  }

  it('classifies anything at all given as a payload or type: accepted, or a named input error, never another error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.constantFrom('send-email', 'process-payment', 'generate-report', 'sync-data'), fc.string()), fc.anything(), async (type, payload) => {
        const id = uniqueId('any');
        try {
          await jobs.enqueue(type as JobType, payload as never, { id });
          await jobs.temporal.workflow.getHandle(id).terminate('fuzz case accepted');
        } catch (err) {
          assert.ok(err instanceof InvalidPayloadError || err instanceof UnknownJobTypeError, `unclassified: ${String(err)}`);
          await startedNothing(id);
        }
      }),
      { numRuns: numRuns * 4 },
    );
  });

  it('jobctl exits 2 naming the field for hostile input, before connecting anywhere', async () => {
    const saved = { address: process.env.TEMPORAL_ADDRESS, error: console.error };
    process.env.TEMPORAL_ADDRESS = '127.0.0.1:1';
    let printed = '';
    console.error = (line: string) => (printed += `${line}\n`);
    try {
      await fc.assert(
        fc.asyncProperty(valid['send-email'], hostile['send-email'], badId, async (payload, mutation, id) => {
          printed = '';
          assert.equal(await jobctl(['node', 'jobctl', 'enqueue', 'send-email', JSON.stringify(mutation.apply(payload))]), 2);
          assert.ok(printed.includes(mutation.field ? `payload.${mutation.field}:` : 'payload:'), printed);
          printed = '';
          assert.equal(await jobctl(['node', 'jobctl', 'enqueue', 'send-email', JSON.stringify(payload), '--id', id]), 2);
          assert.match(printed, /\bid: must be 1 to 200 characters/);
          // Printed IDs cannot inject terminal escapes.
          assert.doesNotMatch(printed, /\u001b/);
        }),
        { numRuns },
      );
    } finally {
      console.error = saved.error;
      if (saved.address === undefined) delete process.env.TEMPORAL_ADDRESS;
      else process.env.TEMPORAL_ADDRESS = saved.address;
    }
  });
});
