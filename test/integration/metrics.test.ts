import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { openDatabase } from '../../src/db/database';
import { migrateToLatest } from '../../src/db/migrate';
import { builtInMigrations } from '../../src/jobs/database/migrations';
import { seedDemoAccounts } from '../../src/jobs/database/seed';
import { jobMetrics } from '../../src/shared/job-metrics';
import { waitFor } from '../helpers/dlq';
import { repoRoot, startDevServerEnv, uniqueId } from '../helpers/env';
import { labelNames, mergeScrapes, metricNames, scrapeMetrics, type Scrape } from '../helpers/metrics';
import { freePort, runCommand, startProcess, type Started } from '../helpers/processes';
import { makeRecords, startSyncSource, type TestSyncSource } from '../helpers/sync-source';

const jobctl = path.join(repoRoot, 'bin/jobctl.js');
const email = (userId: string) => JSON.stringify({ to: 'ada@example.com', subject: 'Metrics', body: 'Hello', userId });

interface Dashboard {
  panels: { title: string; targets: { expr: string }[] }[];
}

// Real workers (`npm run worker`, built) against a real dev server, scraped over HTTP: the job
// metrics, the SDK's metrics, the queue gauges, the dashboard's queries, and a worker shutdown
// diagnosed by the next attempt on another worker.
describe('worker metrics and the dashboard (real dev server, real worker processes)', function () {
  this.timeout(300_000);
  let env: TestWorkflowEnvironment;
  let source: TestSyncSource;
  let dataDir: string;
  let taskQueue: string;
  const workers: Started[] = [];

  before(async () => {
    env = await startDevServerEnv();
    source = await startSyncSource();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'durable-jobs-metrics-'));
    taskQueue = uniqueId('metrics');
    // `npm run worker` migrates but seeds no demo accounts (only `npm start` does): the payments need alice and bob.
    const db = openDatabase(path.join(dataDir, 'jobs.db'));
    await migrateToLatest(db, builtInMigrations);
    await seedDemoAccounts(db);
    await db.destroy();
  });
  after(async () => {
    for (const w of workers) {
      if (w.child.exitCode !== null) continue;
      w.child.kill('SIGTERM');
      await w.exited;
    }
    await source?.close();
    await env?.teardown();
  });

  const workerEnv = (metricsPort: number): NodeJS.ProcessEnv => ({
    ...process.env,
    TEMPORAL_ADDRESS: env.address,
    TEMPORAL_TASK_QUEUE: taskQueue,
    DATA_DIR: dataDir,
    SYNC_SOURCE_URL: source.url,
    METRICS_HOST: '127.0.0.1',
    METRICS_PORT: String(metricsPort),
    METRICS_SAMPLE_INTERVAL: '500ms',
    SHUTDOWN_GRACE_TIME: '500ms',
    LOG_FORMAT: undefined,
  });
  const startWorker = async () => {
    const port = await freePort();
    const worker = startProcess(process.execPath, [path.join(repoRoot, 'dist/worker/main.js')], workerEnv(port), repoRoot);
    workers.push(worker);
    await worker.waitFor('"msg":"worker:started"');
    return { worker, url: `http://127.0.0.1:${port}/metrics` };
  };
  const ctl = (...args: string[]) => runCommand(process.execPath, [jobctl, ...args], { ...process.env, TEMPORAL_ADDRESS: env.address, TEMPORAL_TASK_QUEUE: taskQueue });
  const ok = async (...args: string[]) => {
    const ran = await ctl(...args);
    assert.equal(ran.code, 0, `jobctl ${args.join(' ')}: ${ran.stderr}`);
    return ran.stdout;
  };

  const scrapes: Scrape[] = [];

  it('exports job counters and histograms, SDK metrics and queue gauges; jobctl stats counts per type; a worker shutdown is named by the next attempt on another worker', async () => {
    const first = await startWorker();
    // Completed, failed for good (compensated, dead-lettered), redriven, cancelled.
    await ok('enqueue', 'send-email', email('m1'), '--id', 'metrics-email');
    await ok('result', 'metrics-email');
    await ok('enqueue', 'process-payment', JSON.stringify({ paymentId: 'metrics-pay', fromAccount: 'alice', toAccount: 'nobody', amount: 100, currency: 'EUR' }));
    assert.equal((await ctl('result', 'payment:metrics-pay')).code, 1);
    await ok('dlq', 'redrive', 'payment:metrics-pay', '--patch', '{"toAccount":"bob"}');
    await ok('result', 'payment:metrics-pay');
    await ok('enqueue', 'send-email', email('m2'), '--id', 'metrics-later', '--delay', '1h');
    await ok('cancel', 'metrics-later');

    const scrape = await waitFor(() => scrapeMetrics(first.url), (s) => s.has('jobs_cancelled_total') && s.has('jobs_dead_letter_queue_size'));
    for (const name of ['jobs_started_total', 'jobs_completed_total', 'jobs_failed_total', 'jobs_attempt_failures_total', 'jobs_dead_lettered_total', 'jobs_compensated_total', 'jobs_redriven_total', 'jobs_cancelled_total']) {
      assert.ok(scrape.get(name)?.has('job_type'), `${name} is exported with job_type`);
    }
    assert.ok(scrape.get('jobs_failed_total')!.has('error_type'));
    assert.ok(scrape.get('jobs_attempt_failures_total')!.has('error_type'));
    for (const name of ['jobs_duration_seconds_bucket', 'jobs_attempts_bucket', 'jobs_queue_backlog', 'jobs_queue_backlog_age_seconds', 'temporal_workflow_completed_total', 'temporal_activity_execution_latency_bucket']) {
      assert.ok(scrape.has(name), `${name} is exported`);
    }
    const text = await (await fetch(first.url)).text();
    assert.match(text, /jobs_failed_total\{[^}]*error_type="process-payment:unknown-account"[^}]*job_type="process-payment"/);
    assert.match(text, /jobs_redriven_total\{[^}]*job_type="process-payment"[^}]*\} 1/);
    assert.match(text, /jobs_dead_letter_queue_size\{[^}]*job_type="process-payment"[^}]*\} 0/, 'redriven: nothing waits in the DLQ');

    type Stats = { types: { type: string; completed: number; failed: number; deadLettered: number }[]; queue: { queueType: string; count: number }[] };
    const counts = (stats: Stats) => stats.types.filter((t) => t.type === 'process-payment').map((t) => [t.completed, t.failed, t.deadLettered])[0];
    // Visibility is eventually consistent: give it a moment to index the closed runs.
    const stats = await waitFor(async () => JSON.parse(await ok('stats', '--json')) as Stats, (s) => JSON.stringify(counts(s)) === '[1,1,0]');
    assert.deepEqual(counts(stats), [1, 1, 0], 'the redriven payment: one failed run, one completed, none left in the DLQ');
    assert.deepEqual(stats.queue.map((q) => q.queueType), ['workflow', 'activity']);
    assert.match(await ok('stats'), /process-payment\s+0\s+0\s+0\s+1\s+1\s+0/);

    // A sync whose page request hangs, on a worker that is then stopped: its grace time runs out.
    source.setRecords('metrics-sync', makeRecords(3));
    let hung!: () => void;
    const requestArrived = new Promise<void>((resolve) => (hung = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    source.script = async (request) => {
      if (request.n === 1) {
        hung();
        await released;
      }
      return undefined;
    };
    await ok('enqueue', 'sync-data', JSON.stringify({ source: 'metrics-sync' }), '--id', 'metrics-sync');
    await requestArrived;
    scrapes.push(await scrapeMetrics(first.url));
    first.worker.child.kill('SIGTERM');
    assert.equal(await first.worker.exited, 0, first.worker.output());
    release();
    assert.match(first.worker.output(), /"signal":"SIGTERM".*"msg":"worker:shutdown"/);

    const status = JSON.parse(await ok('status', 'metrics-sync', '--json')) as { status: string; error?: { type?: string; stall?: string } };
    assert.equal(status.error?.type, 'jobs:worker-shutdown');
    assert.equal(status.error?.stall, 'worker-shutdown', 'jobctl status names the stall');
    assert.match(await ok('status', 'metrics-sync'), /stalled: the worker shut down before the attempt finished/);

    const second = await startWorker();
    await ok('result', 'metrics-sync');
    assert.match(second.worker.output(), /"jobId":"metrics-sync".*"attempt":2.*"stall":"worker-shutdown".*"msg":"job:stalled"/);
    assert.match(second.worker.output(), /"previousAttempt":"worker-shutdown".*"msg":"job:attempt"/, "the next attempt's own log line says why its predecessor ended");
    // Activity lines name the attempt by job, activity ID and attempt; the SDK's task token (an opaque blob) is left out.
    const lines = (output: string, msg: string) => output.split('\n').filter((l) => l.includes(`"msg":"${msg}"`)).map((l) => JSON.parse(l) as Record<string, unknown>);
    const failedLines = lines(first.worker.output(), 'job:attempt-failed').filter((l) => l.jobId === 'payment:metrics-pay');
    assert.ok(failedLines.length > 0 && failedLines.every((l) => typeof l.activityId === 'string' && typeof l.attempt === 'number'), 'activity lines name the attempt');
    assert.ok(lines(second.worker.output(), 'job:stalled').every((l) => typeof l.activityId === 'string'));
    for (const { worker } of [first, second]) assert.doesNotMatch(worker.output(), /taskToken/);
    const afterStall = await (await fetch(second.url)).text();
    assert.match(afterStall, /jobs_stalled_total\{[^}]*job_type="sync-data"[^}]*reason="worker-shutdown"[^}]*\} 1/);
    assert.match(afterStall, /jobs_attempt_failures_total\{[^}]*error_type="worker-shutdown"[^}]*job_type="sync-data"/);
    scrapes.push(await scrapeMetrics(second.url));
  });

  it('every dashboard panel queries metrics (and labels) the workers really export', async () => {
    assert.equal(scrapes.length, 2, 'the test above scraped both workers');
    const exported = mergeScrapes(...scrapes);
    const dashboard = JSON.parse(await readFile(path.join(repoRoot, 'deploy/grafana/dashboards/durable-jobs.json'), 'utf8')) as Dashboard;
    const queried = new Set<string>();
    for (const panel of dashboard.panels) {
      assert.ok(panel.targets.length > 0, `${panel.title}: has a query`);
      for (const { expr } of panel.targets) {
        const names = metricNames(expr);
        assert.ok(names.length > 0, `${panel.title}: ${expr} names a metric`);
        for (const name of names) {
          queried.add(name);
          assert.ok(exported.has(name), `${panel.title}: ${name} is exported by the worker`);
          for (const label of labelNames(expr)) {
            assert.ok(names.some((n) => exported.get(n)?.has(label)), `${panel.title}: label ${label} of ${expr} is on ${names.join(', ')}`);
          }
        }
      }
    }
    for (const metric of Object.values(jobMetrics)) {
      const sample = metric.kind === 'counter' ? `${metric.name}_total` : metric.kind === 'histogram' ? `${metric.name}_bucket` : metric.name;
      assert.ok([...queried].some((q) => q === sample || q.startsWith(`${metric.name}_`)), `the dashboard shows ${metric.name}`);
    }
  });
});
