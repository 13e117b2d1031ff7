import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { trace } from '@opentelemetry/api';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Runtime, type LogLevel, type LogMetadata } from '@temporalio/worker';
import { JobClient } from '../../src/client/job-client';
import { clientTracingInterceptors } from '../../src/client/tracing';
import { catalog } from '../../src/jobs/catalog';
import { worker as builtInWorker } from '../../src/app/worker';
import { loadConfig } from '../../src/shared/config';
import { createWorker, type CreatedWorker } from '../../src/worker/create-worker';
import { startTracing, type WorkerTracing } from '../../src/worker/tracing';
import { deadLetterEntries, waitFor } from '../helpers/dlq';
import { startDevServerEnv, uniqueId } from '../helpers/env';
import { startTestJaeger, type TestJaeger } from '../helpers/jaeger';
import type { ReceivedSpan } from '../helpers/otlp-spans';

// A payment to an account that does not exist fails its capture, is compensated (the hold is
// released), dead-lettered, then redriven with the right account. The worker and the client export
// their spans over OTLP/HTTP to a real Jaeger (v2, built with `go install` by `npm run provision`),
// and the test reads them back through Jaeger's query API, as a person's UI would.
describe('OpenTelemetry traces of a job, through its failure, DLQ and redrive (real dev server)', function () {
  this.timeout(240_000);
  let env: TestWorkflowEnvironment;
  let jaeger: TestJaeger;
  let tracing: WorkerTracing;
  let created: CreatedWorker;
  const saved = { ...process.env };
  const logs: { level: LogLevel; message: string; meta?: LogMetadata }[] = [];

  before(async () => {
    // The worker's log lines, as the runtime's logger receives them (before its level filter).
    const logger = Runtime.instance().logger;
    const log = logger.log.bind(logger);
    logger.log = (level, message, meta) => {
      logs.push({ level, message, meta });
      log(level, message, meta);
    };
    jaeger = await startTestJaeger();
    Object.assign(process.env, { OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpUrl, OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_SERVICE_NAME: 'tracing-test' });
    tracing = startTracing();
    env = await startDevServerEnv();
  });
  after(async () => {
    await created?.close();
    await env?.teardown();
    await jaeger?.close();
    process.env = saved;
  });

  it('one trace from the caller\'s span through every attempt, linked from the redrive, with job attributes and no payload value', async () => {
    const since = new Date();
    const taskQueue = uniqueId('traced');
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'traced-'));
    created = await createWorker({ ...builtInWorker, config: loadConfig({ temporalAddress: env.address, taskQueue, dataDir }, {}), seed: true });
    const client = new Client({ connection: env.connection, interceptors: { workflow: clientTracingInterceptors(true) } });
    const jobs = new JobClient(client, { catalog, taskQueue });
    const amount = 4217;
    const paymentId = uniqueId('pay');
    const running = Promise.all(created.workers.map((w) => w.run()));
    try {
      const { id, handle } = await trace.getTracer('test').startActiveSpan('POST /payments', async (span) => {
        try {
          return await jobs.enqueue('process-payment', { paymentId, fromAccount: 'alice', toAccount: 'nobody-zq', amount, currency: 'EUR' });
        } finally {
          span.end();
        }
      });
      await assert.rejects(handle.result());
      await deadLetterEntries(env.client, taskQueue, 'process-payment');
      const entry = await jobs.deadLetters.show(id);
      assert.match(entry.traceContext?.traceparent ?? '', /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/, 'the DLQ entry keeps the failed run\'s trace context');
      const redriven = await jobs.deadLetters.redrive(id, { patch: { toAccount: 'bob' } });
      await env.client.workflow.getHandle(id, redriven.runId).result();
      await tracing.flush();
      const spans = await waitFor(
        async () => jaeger.search('tracing-test', since),
        (all) => all.filter((s) => s.name === 'RunWorkflow:processPaymentWorkflow').length >= 2 && all.some((s) => s.name === 'RedriveJob'),
        30_000,
      );
      const byName = (name: string, traceId?: string) => spans.filter((s) => s.name === name && (traceId === undefined || s.traceId === traceId));
      const one = (name: string, traceId?: string): ReceivedSpan => {
        const found = byName(name, traceId);
        assert.ok(found.length >= 1, `a ${name} span${traceId ? ` in trace ${traceId}` : ''} (got ${[...new Set(spans.map((s) => s.name))].join(', ')})`);
        return found[0]!;
      };

      // The caller's span parents the enqueue; the failed run and all its attempts share its trace.
      const request = one('POST /payments');
      const start = one('StartWorkflow:processPaymentWorkflow', request.traceId);
      assert.equal(start.parentSpanId, request.spanId, 'the enqueue is a child of the caller\'s span');
      const failedTrace = request.traceId;
      const failedRun = one('RunWorkflow:processPaymentWorkflow', failedTrace);
      assert.equal(failedRun.parentSpanId, start.spanId);
      const attempts = byName('RunActivity:capturePayment', failedTrace);
      assert.ok(attempts.length >= 1);
      assert.equal(attempts[0]!.attributes['job.id'], id);
      assert.equal(attempts[0]!.attributes['job.type'], 'process-payment');
      assert.equal(attempts[0]!.attributes['job.step'], 'capturePayment');
      assert.equal(attempts[0]!.attributes['job.attempt'], 1);
      assert.ok(String(attempts[0]!.attributes['job.error_type']).length > 0, 'a failed attempt names its error type');
      assert.equal(byName('RunActivity:cancelHold', failedTrace).length, 1, 'the compensation is in the failed run\'s trace');
      assert.ok(byName('ledger.transaction', failedTrace).length >= 1, 'the ledger transaction has its span');
      assert.ok(byName('RunActivity:durable-jobs.handOffToDeadLetter', failedTrace).length === 1, 'the DLQ hand-off is in the failed run\'s trace');
      const reserve = one('RunActivity:reserveFunds', failedTrace);
      const ledger = byName('ledger.transaction', failedTrace).find((s) => s.parentSpanId === reserve.spanId);
      assert.ok(ledger, 'the ledger transaction is a child of its attempt');

      // Jaeger holds the trace under its ID, and a search by the job's ID finds it (docs/guide/tracing.md).
      assert.ok((await jaeger.trace(failedTrace)).some((s) => s.name === 'RunActivity:capturePayment'), 'the failed run\'s trace, by its ID');
      assert.ok((await jaeger.traceIdsTagged('tracing-test', 'job.id', id)).includes(failedTrace), 'a search by job.id finds the failed run\'s trace');

      // The redrive starts a run linked to the failed one.
      const redrive = one('RedriveJob');
      assert.ok(redrive.links.some((l) => l.traceId === failedTrace), 'the redrive links to the failed run\'s trace');
      assert.equal(redrive.attributes['job.id'], id);
      const secondRun = one('RunWorkflow:processPaymentWorkflow', redrive.traceId);
      assert.notEqual(redrive.traceId, failedTrace);
      assert.ok(spans.some((s) => s.traceId === redrive.traceId && s.name === 'StartWorkflow:processPaymentWorkflow' && s.parentSpanId === redrive.spanId));
      assert.ok(secondRun);

      // Log lines lead to their trace: the workflow's job:failed, and the attempts' lines.
      const failedLine = logs.find((l) => l.message === 'job:failed' && l.meta?.jobId === id);
      assert.equal(failedLine?.meta?.trace_id, failedTrace, `job:failed carries the trace ID: ${JSON.stringify(failedLine?.meta)}`);
      assert.match(String(failedLine?.meta?.span_id), /^[0-9a-f]{16}$/);
      const activityLine = logs.find((l) => l.meta?.jobId === id && l.meta?.activityType !== undefined && l.meta?.trace_id !== undefined);
      assert.ok(activityLine, 'an activity line carries the trace ID');

      // Identifiers only: no payload value in any span.
      for (const s of spans) {
        for (const value of [String(amount), 'nobody-zq', '"alice"', 'EUR']) assert.ok(!s.raw.includes(value), `span ${s.name} carries the payload value ${value}: ${s.raw}`);
      }
    } finally {
      for (const w of created.workers) w.shutdown();
      await running;
    }
  });
});
