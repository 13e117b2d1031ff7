import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { JobClient } from '../../src/client/job-client';
import type { Db } from '../../src/jobs/database/schema';
import type { DeadLetterEntry } from '../../src/workflow-kit/dead-letter-entries';
import { openingBalance, recordsPerSource, type LoadPlan, type Outcome, type RunningLoad } from './cluster-load';
import type { LoadSmtpServer } from './load-smtp';
import { assertPaymentInvariants } from './payments';

/** The figures of a finished load. */
export interface Reconciliation {
  enqueued: number;
  completed: number;
  /** Failed jobs whose DLQ entry is still dead-lettered. */
  deadLettered: number;
  /** Failed jobs whose DLQ entry an operator discarded. */
  discarded: number;
  injectedTransient: number;
  injectedPermanent: number;
  /** Ledger rows sharing a (job, step): must be 0. */
  duplicateSteps: number;
  /** Emails delivered more than once under the same Message-ID (at-least-once; receivers de-duplicate). */
  emailRepeats: number;
  seconds: number;
  jobsPerSecond: number;
}

async function dlqEntries(jobs: JobClient, ids: Set<string>, expected: number, timeoutMs = 120_000): Promise<DeadLetterEntry[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let entries: DeadLetterEntry[] = [];
    try {
      entries = (await jobs.deadLetters.list({ status: 'all' })).filter((e) => ids.has(e.id));
    } catch {
      // a node or the database coming back: ask again
    }
    if (entries.length >= expected || Date.now() > deadline) return entries;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * Checks a settled load against its plan and the side effects it left, asserting: each job ended
 * as its injected failure says; enqueued = completed + dead-lettered + discarded; no (job, step)
 * twice in the ledger; each completed payment captured once, each completed sync stored its
 * records, each completed report wrote its file, each completed email was delivered; and the
 * payment invariants. `discardEvery` discards every Nth DLQ entry first, as an operator would.
 */
export async function reconcile(args: { plan: LoadPlan; load: RunningLoad; outcomes: Outcome[]; jobs: JobClient; db: Db; smtp: LoadSmtpServer; reportsDir: string; discardEvery?: number }): Promise<Reconciliation> {
  const { plan, load, outcomes, jobs, db, smtp } = args;
  const seconds = (Date.now() - load.startedAt) / 1000;
  const wrong = outcomes.filter((o) => (o.job.injected === 'permanent') !== (o.status === 'failed')).map((o) => `${o.id} (${o.job.injected}) ${o.status}`);
  assert.deepEqual(wrong, [], 'every job ends as its injected failure says');

  const failed = outcomes.filter((o) => o.status === 'failed');
  const entries = await dlqEntries(jobs, new Set(failed.map((o) => o.id)), failed.length);
  assert.equal(entries.length, failed.length, 'every failed job is in the DLQ');
  if (args.discardEvery) {
    for (const [i, entry] of entries.entries()) if (i % args.discardEvery === 0 && entry.status === 'dead-lettered') await jobs.deadLetters.discard(entry.id, 'soak: given up');
  }
  const after = await dlqEntries(jobs, new Set(failed.map((o) => o.id)), failed.length);
  const count = (status: string) => after.filter((e) => e.status === status).length;
  const completed = outcomes.filter((o) => o.status === 'completed');
  const figures = { enqueued: load.ids.length, completed: completed.length, deadLettered: count('dead-lettered'), discarded: count('discarded') };
  assert.equal(figures.enqueued, plan.jobs.length);
  assert.equal(figures.enqueued, figures.completed + figures.deadLettered + figures.discarded, `enqueued = completed + DLQ + discarded: ${JSON.stringify(figures)}`);

  const like = `%${plan.prefix}-%`;
  const duplicates = await db
    .selectFrom('ledger')
    .select(['job_id', 'step', sql<number>`count(*)`.as('n')])
    .where('job_id', 'like', like)
    .groupBy(['job_id', 'step'])
    .having(sql`count(*)`, '>', 1)
    .execute();
  assert.deepEqual(duplicates, [], 'no (job, step) twice in the ledger');

  const byType = (type: string) => completed.filter((o) => o.job.type === type);
  const paymentIds = outcomes.filter((o) => o.job.type === 'process-payment').map((o) => o.job.payload.paymentId as string);
  const captures = await db.selectFrom('entries').select(['payment_id', sql<number>`count(*)`.as('n')]).where('leg', 'like', 'capture:%').where('payment_id', 'like', like).groupBy('payment_id').execute();
  const captured = new Map(captures.map((c) => [c.payment_id, Number(c.n)]));
  for (const o of byType('process-payment')) assert.equal(captured.get(o.job.payload.paymentId as string), 2, `${o.id} captured once (two legs)`);
  assert.equal(captured.size, byType('process-payment').length, 'only completed payments captured');
  await assertPaymentInvariants(db, plan.accounts, openingBalance * plan.accounts.length, paymentIds);

  for (const o of byType('sync-data')) {
    const row = await db.selectFrom('sync_records').select(sql<number>`count(*)`.as('n')).where('source', '=', o.job.payload.source as string).executeTakeFirstOrThrow();
    assert.equal(Number(row.n), recordsPerSource, `${o.id} stored its records`);
  }
  for (const o of byType('generate-report')) assert.ok(existsSync(path.join(args.reportsDir, `${o.job.payload.name as string}.json`)), `${o.id} wrote its file`);
  let emailRepeats = 0;
  for (const o of byType('send-email')) {
    const n = smtp.delivered.get(`<${o.id}@durable-jobs>`) ?? 0;
    assert.ok(n >= 1, `${o.id} was delivered`);
    emailRepeats += n - 1;
  }
  return {
    ...figures,
    injectedTransient: plan.jobs.filter((j) => j.injected === 'transient').length,
    injectedPermanent: plan.jobs.filter((j) => j.injected === 'permanent').length,
    duplicateSteps: duplicates.length,
    emailRepeats,
    seconds: Math.round(seconds),
    jobsPerSecond: Math.round((plan.jobs.length / seconds) * 10) / 10,
  };
}

/** One line of figures for the test output. */
export function formatFigures(title: string, r: Reconciliation, extra: Record<string, string | number> = {}): string {
  const parts = Object.entries({ ...r, ...extra }).map(([k, v]) => `${k}=${v}`);
  return `      [${title}] ${parts.join(' ')}`;
}
