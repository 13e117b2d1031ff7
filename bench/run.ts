import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { collectTimes, observerClient, waitForAll } from './collect';
import { offerLoad } from './load';
import { startOtlpSink, type OtlpSink } from './otlp-sink';
import { ownCpuSeconds, sampleProcess } from './proc';
import { sampleThreads, threadCpuBetween, type ThreadCpu } from './threads';
import type { Scenario } from './scenarios';
import { startBenchServer, waitForServer, type BenchServer } from './servers';
import { median, percentiles, type Percentiles } from './stats';
import { startBenchWorker, type BenchWorker } from './workers';

/** How one run is set up. */
export interface RunOptions {
  jobs: number;
  concurrency: number;
  rate?: number;
  /** The `temporal` CLI, for the servers the bench starts. */
  cliPath: string;
  /** Use this server for every scenario instead of starting fresh ones. @defaultValue unset */
  externalAddress?: string;
  /** LOG_LEVEL of our worker. @defaultValue 'info' */
  logLevel?: string;
  /** Write the worker's V8 CPU profile here. @defaultValue none */
  cpuProfileDir?: string;
  /** Run number, for IDs and the report. */
  repeat: number;
  /** The built checkout whose worker `ours-before` runs (`--before`). @defaultValue unset: no `ours-before` */
  beforeRoot?: string;
}

/** What one run measured. */
export interface RunResult {
  scenario: string;
  repeat: number;
  jobs: number;
  rate?: number;
  server: string;
  /** Jobs per second, first enqueue to last completion. */
  throughput: number;
  durationMs: number;
  /** Enqueue to the first workflow task's start, ms. */
  enqueueToStart: Percentiles;
  /** Enqueue to the workflow's close, ms. */
  enqueueToComplete: Percentiles;
  /** CPU seconds used during the run; null where the process is not ours to read. */
  cpuSeconds: { worker: number | null; client: number; server: number | null };
  /** The worker's CPU seconds by thread (main, workflow thread(s), native); null where /proc has no split. */
  workerThreadCpuSeconds: ThreadCpu | null;
  /** Peak resident memory of the worker process, MB. */
  workerPeakRssMb: number | null;
  /** Jobs that did not complete (failed, timed out): should be 0. */
  notCompleted: number;
  /** History events per job, median: what the server wrote for each. */
  eventsPerJob: number;
  /** A traced scenario's export: OTLP bytes per job the sink received (worker and client), and the sink's CPU seconds; null untraced. */
  traceExport: { bytesPerJob: number; requests: number; sinkCpuSeconds: number | null } | null;
}

/** What stops the processes of the run in progress; `npm run bench` calls it on Ctrl-C. */
export const stopCurrentRun: { current?: () => Promise<void> } = {};

/** Runs one scenario on a fresh server (unless an external one is given) and measures it. */
export async function runScenario(scenario: Scenario, options: RunOptions): Promise<RunResult> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `bench-${scenario.name}-`));
  const taskQueue = `bench-${scenario.name}-${options.repeat}-${Date.now()}`;
  let server: BenchServer | undefined;
  let worker: BenchWorker | undefined;
  let sink: OtlpSink | undefined;
  const closers: (() => Promise<void>)[] = [];
  stopCurrentRun.current = async () => {
    await worker?.stop().catch(() => {});
    await server?.stop().catch(() => {});
    await sink?.stop().catch(() => {});
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  };
  try {
    if (options.externalAddress) await waitForServer(options.externalAddress, 10_000);
    else server = await startBenchServer(scenario.server, options.cliPath, dir);
    const address = options.externalAddress ?? server!.address;
    const loadFile = path.join(dir, 'enqueued.json');
    if (scenario.traced) sink = await startOtlpSink();
    const traceEnv: Record<string, string> = sink ? { OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint, OTEL_SERVICE_NAME: 'bench-worker' } : {};
    const loadEnv = { ...traceEnv, BENCH_JOBS: String(options.jobs), BENCH_CONCURRENCY: String(options.concurrency), BENCH_RATE: options.rate ? String(options.rate) : '', BENCH_OUT: loadFile };
    if (scenario.before && !options.beforeRoot) throw new Error(`${scenario.name} runs another build's worker: give --before DIR`);
    const root = scenario.before ? options.beforeRoot : undefined;
    worker = await startBenchWorker({ kind: scenario.worker, address, taskQueue, dir, logLevel: options.logLevel, cpuProfileDir: options.cpuProfileDir, env: loadEnv, root });
    const client = await scenario.connect?.(address, taskQueue, sink?.endpoint);
    let clientClosed: Promise<void> | undefined;
    const closeClient = () => (clientClosed ??= client?.close() ?? Promise.resolve());
    closers.push(closeClient);
    const observer = await observerClient(address);
    closers.push(observer.close);

    const before = { worker: await sampleProcess(worker.pid), threads: await sampleThreads(worker.pid), server: await sampleProcess(server?.pid), client: ownCpuSeconds() };
    const enqueuedAt = client
      ? await offerLoad(client.enqueue, { jobs: options.jobs, concurrency: options.concurrency, rate: options.rate, idOf: (i) => `${taskQueue}-${i}` })
      : await loadInWorker(loadFile, options.jobs);
    await waitForAll(observer.client, taskQueue, options.jobs, Math.max(120_000, options.jobs * 500));
    const after = { worker: await sampleProcess(worker.pid), threads: await sampleThreads(worker.pid), server: await sampleProcess(server?.pid), client: ownCpuSeconds() };
    const workerThreadCpuSeconds = await threadCpuBetween(worker.pid, before.threads, after.threads, worker.threadsFile);
    // What was exported: the client's and the worker's last batches leave at their close.
    await closeClient();
    let traceExport: RunResult['traceExport'] = null;
    if (sink) {
      await worker.stop();
      const counts = await sink.counts();
      traceExport = { bytesPerJob: counts.bytes / options.jobs, requests: counts.requests, sinkCpuSeconds: counts.cpuSeconds };
    }

    const times = await collectTimes(observer.client, [...enqueuedAt.keys()]);
    const toStart: number[] = [];
    const toComplete: number[] = [];
    let first = Infinity;
    let last = -Infinity;
    let notCompleted = 0;
    const events: number[] = [];
    for (const [id, at] of enqueuedAt) {
      const t = times.get(id)!;
      if (!t.completed) notCompleted++;
      events.push(t.events);
      toStart.push(t.startedAt - at);
      toComplete.push(t.closedAt - at);
      first = Math.min(first, at);
      last = Math.max(last, t.closedAt);
    }
    const durationMs = last - first;
    const delta = (a?: { cpuSeconds: number }, b?: { cpuSeconds: number }) => (a && b ? b.cpuSeconds - a.cpuSeconds : null);
    return {
      scenario: scenario.name,
      repeat: options.repeat,
      jobs: options.jobs,
      rate: options.rate,
      server: options.externalAddress ? `external ${options.externalAddress}` : scenario.server,
      throughput: options.jobs / (durationMs / 1000),
      durationMs,
      enqueueToStart: percentiles(toStart),
      enqueueToComplete: percentiles(toComplete),
      // With the load in the worker's process, the client's CPU is in the worker's figure.
      cpuSeconds: { worker: delta(before.worker, after.worker), client: client ? after.client - before.client : 0, server: delta(before.server, after.server) },
      workerThreadCpuSeconds,
      workerPeakRssMb: after.worker ? after.worker.peakRssBytes / 2 ** 20 : null,
      notCompleted,
      eventsPerJob: median(events),
      traceExport,
    };
  } catch (err) {
    // The worker's log says why jobs did not finish; the directory is removed below.
    const log = await readFile(path.join(dir, `worker-${taskQueue}.log`), 'utf8').catch(() => '');
    throw new Error(`${scenario.name} run ${options.repeat} failed: ${String(err)}\nlast worker log lines:\n${log.split('\n').slice(-15).join('\n')}`);
  } finally {
    for (const close of closers.reverse()) await close().catch(() => {});
    await worker?.stop().catch(() => {});
    await server?.stop().catch(() => {});
    await sink?.stop().catch(() => {});
    await rm(dir, { recursive: true, force: true }).catch(() => {});
    stopCurrentRun.current = undefined;
  }
}

/** Starts the load that the worker process offers itself (`ours-eager`) and waits for its enqueue times. */
async function loadInWorker(file: string, jobs: number): Promise<Map<string, number>> {
  await writeFile(`${file}.go`, '');
  const deadline = Date.now() + Math.max(120_000, jobs * 500);
  for (;;) {
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text) return new Map(JSON.parse(text) as [string, number][]);
    if (Date.now() > deadline) throw new Error('the worker did not report its enqueue times');
    await new Promise((r) => setTimeout(r, 100));
  }
}
