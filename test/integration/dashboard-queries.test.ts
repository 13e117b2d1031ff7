import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import type { JobClient } from '../../src/client/job-client';
import { openDatabase } from '../../src/db/database';
import { migrateToLatest } from '../../src/db/migrate';
import { builtInMigrations } from '../../src/jobs/database/migrations';
import { seedDemoAccounts } from '../../src/jobs/database/seed';
import { ProcessPaymentErrorType } from '../../src/jobs/process-payment';
import { waitFor } from '../helpers/dlq';
import { repoRoot, uniqueId } from '../helpers/env';
import { freePort, type Started } from '../helpers/processes';
import { startPrometheus, testScrapeConfig, type TestPrometheus } from '../helpers/prometheus';
import { makeRecords, startSyncSource, type TestSyncSource } from '../helpers/sync-source';
import { jobClientFor, killIfRunning, startTestTemporal, startWorkerProcess, type TestTemporal, type WorkerEnv } from '../helpers/worker-process';

interface Dashboard {
  panels: { title: string; targets: { expr: string }[] }[];
}

/** Seconds between the test Prometheus's scrapes. */
const scrapeSeconds = 1;

/**
 * A panel's PromQL as Grafana sends it for a single point covering the last `rangeSeconds`: then
 * `$__interval` and `$__range` are that range, and `$__rate_interval` is, by Grafana's rule,
 * max($__interval + scrape interval, 4 × scrape interval). The dashboard defines no template
 * variables of its own; one added later (`$job_type`) throws here until this says what stands in for it.
 */
function grafanaExpr(expr: string, rangeSeconds: number): string {
  const builtIns: Record<string, string> = {
    __interval: `${rangeSeconds}s`,
    __range: `${rangeSeconds}s`,
    __rate_interval: `${Math.max(rangeSeconds + scrapeSeconds, 4 * scrapeSeconds)}s`,
  };
  return expr.replace(/\$\{?(\w+)\}?/g, (variable, name: string) => {
    const value = builtIns[name];
    if (value === undefined) throw new Error(`${expr}: no substitution for Grafana variable ${variable}; add one to grafanaExpr`);
    return value;
  });
}

// The dashboard's queries evaluated by a real Prometheus (Debian's), scraping a real worker
// (`npm run worker`, built) with the shipped scrape config, after a load that completes, fails,
// dead-letters, redrives, retries, cancels and stalls jobs. The metrics test checks the names;
// this checks each panel would draw something.
describe('the Grafana dashboard, queried in a real Prometheus scraping a real worker', function () {
  this.timeout(300_000);
  let prometheus: TestPrometheus;
  let startedAt: number;
  let temporal: TestTemporal;
  let source: TestSyncSource;
  let workerEnv: WorkerEnv;
  let jobs: JobClient;
  let worker: Started | undefined;
  let loaded = false;

  /** Sync sources named `retry-…` answer 503 once; `hang-…` hold their first request until released. */
  const failedOnce = new Set<string>();
  const hangs = new Map<string, { arrived: () => void; released: Promise<void> }>();

  before(async () => {
    // Prometheus first: without it installed, the test fails here, before anything slow starts.
    const metricsPort = await freePort();
    const shipped = await readFile(path.join(repoRoot, 'deploy/prometheus/prometheus.yml'), 'utf8');
    prometheus = await startPrometheus(testScrapeConfig(shipped, `127.0.0.1:${metricsPort}`, `${scrapeSeconds}s`));
    startedAt = Date.now();
    temporal = await startTestTemporal();
    source = await startSyncSource();
    source.script = async (request) => {
      if (request.source.startsWith('retry-') && !failedOnce.has(request.source)) {
        failedOnce.add(request.source);
        return { status: 503 };
      }
      const hang = hangs.get(request.source);
      if (hang) {
        hangs.delete(request.source);
        hang.arrived();
        await hang.released;
      }
      return undefined;
    };
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'durable-jobs-dashboard-'));
    // `npm run worker` migrates but seeds no demo accounts (only `npm start` does): the payments need alice and bob.
    const db = openDatabase(path.join(dataDir, 'jobs.db'));
    await migrateToLatest(db, builtInMigrations);
    await seedDemoAccounts(db);
    await db.destroy();
    workerEnv = {
      temporal,
      taskQueue: uniqueId('dashboard'),
      dataDir,
      // Every worker of the test serves the one port Prometheus scrapes, as a restarted replica would.
      extra: { SYNC_SOURCE_URL: source.url, METRICS_PORT: String(metricsPort), METRICS_SAMPLE_INTERVAL: '500ms', SHUTDOWN_GRACE_TIME: '500ms' },
    };
    jobs = await jobClientFor(workerEnv);
  });
  after(async () => {
    await killIfRunning(worker);
    await jobs?.close();
    await prometheus?.stop();
    await source?.close();
    await temporal?.stop();
  });

  /** `size` of each: completed emails; payments failed for good (compensated, dead-lettered), half redriven; syncs retried once; cancelled emails. */
  const wave = async (name: string, size: number) => {
    const ids = (kind: string) => Array.from({ length: size }, (_, i) => `${name}-${kind}-${i}-${uniqueId('j')}`);
    const email = (id: string) => ({ to: 'ada@example.com', subject: `Dashboard ${id}`, body: 'Hello', userId: id });
    const completed = ids('email').map(async (id) => {
      await jobs.enqueue('send-email', email(id), { id });
      await jobs.result(id);
    });
    const payments = ids('pay').flatMap((paymentId) => [`${paymentId}-a`, `${paymentId}-b`]).map(async (paymentId, i) => {
      const { id } = await jobs.enqueue('process-payment', { paymentId, fromAccount: 'alice', toAccount: 'nobody', amount: 100, currency: 'EUR' });
      await assert.rejects(jobs.result(id), WorkflowFailedError);
      const entries = await waitFor(() => jobs.deadLetters.list({ type: 'process-payment' }), (found) => found.some((e) => e.id === id), 30_000);
      assert.equal(entries.find((e) => e.id === id)?.error.type, ProcessPaymentErrorType.UnknownAccount, `${id} is dead-lettered`);
      if (i % 2 === 1) return;
      await jobs.deadLetters.redrive(id, { patch: { toAccount: 'bob' }, reason: 'dashboard test' });
      await jobs.result(id);
    });
    const retried = ids('retry').map(async (id) => {
      source.setRecords(`retry-${id}`, makeRecords(3));
      await jobs.enqueue('sync-data', { source: `retry-${id}` }, { id });
      await jobs.result(id);
    });
    const cancelled = ids('later').map(async (id) => {
      await jobs.enqueue('send-email', email(id), { id, delay: '1h' });
      await jobs.cancel(id);
    });
    // Settled, so that no job of the wave is still being waited for when a failure ends the test.
    const failed = (await Promise.allSettled([...completed, ...payments, ...retried, ...cancelled])).find((o) => o.status === 'rejected');
    if (failed) throw failed.reason;
  };

  /** Starts a sync whose page request hangs, then stops the worker: the next worker's attempt counts the stall. */
  const syncStalledByShutdown = async (running: Started) => {
    const id = uniqueId('hang');
    let arrived!: () => void;
    const requested = new Promise<void>((resolve) => (arrived = resolve));
    let release!: () => void;
    hangs.set(`hang-${id}`, { arrived, released: new Promise<void>((resolve) => (release = resolve)) });
    source.setRecords(`hang-${id}`, makeRecords(3));
    await jobs.enqueue('sync-data', { source: `hang-${id}` }, { id });
    await requested;
    running.child.kill('SIGTERM');
    assert.equal(await running.exited, 0, running.output());
    release();
    return id;
  };

  it('scrapes a worker through a mixed load, a worker restart and a stalled attempt', async () => {
    worker = await startWorkerProcess(workerEnv);
    await wave('first', 1);
    // Prometheus has seen the first worker's counters before it stops, so the next worker's continue them.
    await waitFor(() => prometheus.query('jobs_cancelled_total'), (r) => r.length > 0, 30_000);
    const stalled = await syncStalledByShutdown(worker);
    worker = await startWorkerProcess(workerEnv);
    await jobs.result(stalled);
    await wave('second', 2);
    const loadDone = Date.now() / 1000;
    const scrapedAfter = await waitFor(() => prometheus.query(`timestamp(up) > ${loadDone + scrapeSeconds}`), (r) => r.length > 0, 30_000);
    assert.equal(scrapedAfter.length, 1, `Prometheus scraped the worker after the load:\n${prometheus.output()}`);
    assert.deepEqual((await prometheus.query('up')).map((s) => s.value[1]), ['1'], 'the worker is up for Prometheus');
    loaded = true;
  });

  it("every panel's query (each target's expr) returns data: a series with a finite value", async () => {
    assert.ok(loaded, 'the load above ran');
    const dashboard = JSON.parse(await readFile(path.join(repoRoot, 'deploy/grafana/dashboards/durable-jobs.json'), 'utf8')) as Dashboard;
    const rangeSeconds = Math.ceil((Date.now() - startedAt) / 1000);
    const empty: string[] = [];
    let queries = 0;
    for (const panel of dashboard.panels) {
      assert.ok(panel.targets.length > 0, `${panel.title}: has a query`);
      for (const { expr } of panel.targets) {
        const promql = grafanaExpr(expr, rangeSeconds);
        const result = await prometheus.query(promql);
        queries++;
        // NaN (a quantile over no observations) is a gap on the graph, not data.
        if (!result.some((s) => Number.isFinite(Number(s.value[1])))) empty.push(`${panel.title}: ${promql} returned ${JSON.stringify(result)}`);
      }
    }
    assert.ok(queries >= dashboard.panels.length);
    assert.deepEqual(empty, [], 'every panel query returns data after the load');
  });
});
