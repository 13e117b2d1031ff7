import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { JobClient } from '../../src/client/job-client';
import { clientTracingInterceptors } from '../../src/client/tracing';
import { startWorkerProcess, type WorkerProcess } from '../../src/cluster/workers';
import { catalog } from '../../src/jobs/catalog';
import { postgresReachable, postgresSkip, postgresTestDb, type TestDb } from '../helpers/db';
import { waitFor } from '../helpers/dlq';
import { startDevServerEnv, uniqueId } from '../helpers/env';
import { startTestJaeger, type TestJaeger } from '../helpers/jaeger';
import { makeRecords, startSyncSource, type TestSyncSource } from '../helpers/sync-source';

// A sync-data job of 6 pages, 2 per run, on a worker process as `npm run worker` runs it (tracing
// started before pg loads) with its ledger on PostgreSQL: one trace from the caller's span through
// both continue-as-new hand-overs, with the page fetches (undici) and the PostgreSQL queries (pg)
// under the attempts that made them. Spans go to a real Jaeger and are read back from it.
describe('OpenTelemetry traces of a paged sync on PostgreSQL, across continue-as-new (real dev server, worker process, Jaeger)', function () {
  this.timeout(240_000);
  let env: TestWorkflowEnvironment;
  let jaeger: TestJaeger;
  let source: TestSyncSource;
  let testDb: TestDb | undefined;
  let worker: WorkerProcess | undefined;
  let provider: BasicTracerProvider;

  before(async function () {
    if (!(await postgresReachable())) {
      if (process.env.CI === 'true') throw new Error(`CI=true but the PostgreSQL trace test cannot run: ${postgresSkip.reason}`);
      this.skip();
    }
    jaeger = await startTestJaeger();
    source = await startSyncSource();
    testDb = await postgresTestDb();
    env = await startDevServerEnv();
    // The caller's own OpenTelemetry SDK, as an API process would run it: a context manager and
    // the W3C propagator, which the client's interceptor injects the enqueue's context with (each
    // call is refused, harmlessly, when the other tracing test has set one up in this process).
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${jaeger.otlpUrl}/v1/traces` }))] });
  });
  after(async () => {
    await worker?.stop();
    await env?.teardown();
    await testDb?.close();
    await source?.close();
    await provider?.shutdown();
    await jaeger?.close();
  });

  it('one trace from the caller\'s span through every run, with each page fetch and each PostgreSQL query under its attempt', async () => {
    const since = new Date();
    const taskQueue = uniqueId('traced-sync');
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'traced-sync-'));
    worker = await startWorkerProcess('traced-worker', env.address, {
      TEMPORAL_TASK_QUEUE: taskQueue,
      DATA_DIR: dataDir,
      DATABASE_URL: testDb!.url,
      SYNC_SOURCE_URL: source.url,
      OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpUrl,
      OTEL_SERVICE_NAME: 'tracing-sync-test',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      // The queue metrics sample every half second: their reads must not be traced.
      METRICS_SAMPLE_INTERVAL: '500ms',
    }, dataDir);
    const name = uniqueId('src').toLowerCase().replace(/[^a-z0-9-]/g, '-').slice(0, 60);
    source.setRecords(name, makeRecords(12));
    const tracer = provider.getTracer('api');
    const client = new Client({ connection: env.connection, interceptors: { workflow: clientTracingInterceptors({ tracer }) } });
    const jobs = new JobClient(client, { catalog, taskQueue });
    const request = tracer.startSpan('POST /syncs');
    const { id, handle } = await context.with(trace.setSpan(context.active(), request), () => jobs.enqueue('sync-data', { source: name, pageSize: 2, pagesPerRun: 2 }));
    request.end();
    await handle.result();
    await worker.stop();
    worker = undefined;
    const traceId = request.spanContext().traceId;
    const spans = await waitFor(() => jaeger.trace(traceId), (all) => all.filter((s) => s.name === 'RunWorkflow:syncDataWorkflow').length >= 3, 30_000);
    const named = (n: string) => spans.filter((s) => s.name === n);
    const byId = new Map(spans.map((s) => [s.spanId, s]));

    const runs = named('RunWorkflow:syncDataWorkflow');
    assert.ok(runs.length >= 3, `the first run and the two continued as new are in the caller's trace (got ${runs.length})`);
    assert.equal(new Set(runs.map((r) => r.attributes.runId)).size, runs.length, 'one span per run');
    assert.ok(runs.every((r) => r.attributes.workflowId === id));
    // Each run after the first hangs under the ContinueAsNew span of the run before it.
    for (const run of runs.filter((r) => r.attributes.continuedFromExecutionRunId !== undefined)) {
      const handOver = byId.get(run.parentSpanId!);
      assert.equal(handOver?.name, 'ContinueAsNew:syncDataWorkflow', `run ${String(run.attributes.runId)} is a child of the hand-over`);
      assert.equal(byId.get(handOver.parentSpanId!)?.attributes.runId, run.attributes.continuedFromExecutionRunId, 'the hand-over is in the run it continues');
    }
    assert.equal(byId.get(named('StartWorkflow:syncDataWorkflow')[0]!.parentSpanId!)?.name, 'POST /syncs', 'the enqueue is a child of the caller\'s span');

    const attempts = named('RunActivity:syncPage');
    assert.ok(attempts.length >= 6, `every page's attempt (got ${attempts.length})`);
    assert.ok(attempts.every((a) => a.attributes['job.id'] === id && a.attributes['job.type'] === 'sync-data' && a.attributes['job.step'] === 'syncPage'));
    const fetches = spans.filter((s) => s.attributes['http.request.method'] === 'GET' && String(s.attributes['url.full']).startsWith(source.url));
    assert.ok(fetches.length >= 6, `each page fetch has its span (got ${fetches.length})`);
    assert.ok(fetches.every((f) => byId.get(f.parentSpanId!)?.name === 'RunActivity:syncPage'), 'each fetch is a child of its attempt');
    // By name: its attributes are redacted like the logs, and this test's password is "postgres".
    const queries = spans.filter((s) => s.name.startsWith('pg.query:'));
    assert.ok(queries.length >= 6, `the PostgreSQL queries have their spans (got ${queries.length})`);
    const ancestors = (s: (typeof spans)[number]): string[] => (s.parentSpanId && byId.get(s.parentSpanId) ? [byId.get(s.parentSpanId)!.name, ...ancestors(byId.get(s.parentSpanId)!)] : []);
    assert.ok(queries.every((q) => ancestors(q).includes('RunActivity:syncPage') || ancestors(q).some((n) => n.startsWith('RunActivity:'))), 'each query is under an attempt');
    assert.ok(queries.some((q) => ancestors(q)[0] === 'ledger.transaction'), 'the ledger transaction holds its queries');
    // The ledger's span names the attempt's step as the attempt's span does, not the key's (which holds the page's cursor).
    assert.ok(named('ledger.transaction').every((t) => t.attributes['job.step'] === 'syncPage'), 'ledger.transaction job.step');
    // Neither the payload's source name nor the source's cursors are in any span (the fetch URLs' query strings are cut).
    // The source's name is the built-in sync-data type's fairness key by its definition: there, and only there, it is meant.
    const leaks = spans.flatMap((s) => Object.entries(s.attributes).filter(([k, v]) => k !== 'job.fairness_key' && (String(JSON.stringify(v)).includes(name) || /cursor=/.test(String(JSON.stringify(v))))).map(([k, v]) => `${s.name} ${k}=${JSON.stringify(v)}`));
    assert.deepEqual(leaks, [], 'no attribute holds the source\'s name or a cursor');
    for (const s of spans) assert.ok(!/cursor=|CURSOR/.test(s.raw) && !s.name.includes(name), `${s.name}: ${s.raw.slice(0, 300)}`);
    // The worker's own periodic reads (the queue metrics, every 500 ms here) send no trace.
    const all = await jaeger.search('tracing-sync-test', since);
    // (A search returns whole traces: the caller's holds the enqueue's own pause check, a DescribeWorkflow.)
    const sampled = all.filter((s) => s.traceId !== traceId && (s.name.startsWith('QueryWorkflow') || s.name.startsWith('DescribeWorkflow')));
    assert.deepEqual(sampled.map((s) => s.name), [], 'no span of the metrics sampler');
  });
});
