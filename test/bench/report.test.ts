import assert from 'node:assert/strict';
import type { RunResult } from '../../bench/run';
import { cpuRatios, formatReport, ratios, rssRatios, summarise, threadCpuRatios, type BenchReport } from '../../bench/report';

const rounded = (rs: { name: string; median: number; min: number; max: number }[]) => rs.map((r) => [r.name, ...[r.median, r.min, r.max].map((v) => Number(v.toFixed(3)))]);

function run(scenario: string, repeat: number, throughput: number, workerPeakRssMb: number | null): RunResult {
  const p = { p50: 10, p95: 20, p99: 30 };
  return {
    scenario, repeat, jobs: 100, server: 'npm-start', throughput, durationMs: 1000, enqueueToStart: p, enqueueToComplete: p,
    cpuSeconds: { worker: 0.5, client: 0.1, server: 1 }, workerThreadCpuSeconds: null, workerPeakRssMb, notCompleted: 0, eventsPerJob: 11, traceExport: null,
  };
}

// The report's arithmetic on made-up runs: each ratio is taken within a repeat, then the median over repeats.
describe('bench report', () => {
  const runs = [
    run('activity', 1, 100, 300), run('ours-activity', 1, 90, 330),
    run('activity', 2, 50, 310), run('ours-activity', 2, 50, 372),
    run('activity', 3, 80, 320), run('ours-activity', 3, 60, 320),
    run('ceiling', 1, 200, 400), run('ours', 1, 150, null),
  ];

  it('pairs ours-activity with activity repeat by repeat, for throughput and for worker peak RSS', () => {
    assert.deepEqual(rounded(ratios(runs)), [['ours/ceiling', 0.75, 0.75, 0.75], ['ours-activity/activity', 0.9, 0.75, 1]]);
    // ours' RSS is unknown in its only repeat: no RSS ratio for it rather than a wrong one.
    assert.deepEqual(rounded(rssRatios(runs)), [['ours-activity/activity', 1.1, 1, 1.2]]);
  });

  it('prints CPU per job of each process, the ratios and the RSS ratios', () => {
    const report: BenchReport = { startedAt: '', command: '', machine: { cpus: 2, loadAverage: [0] }, options: {}, summaries: summarise(runs), ratios: ratios(runs), rssRatios: rssRatios(runs), cpuRatios: cpuRatios(runs), threadCpuRatios: threadCpuRatios(runs), runs };
    const text = formatReport(report);
    assert.match(text, /^ours-activity\s.*\s5\.0\/1\.0\/10\.0\s/m, 'CPU ms per job: worker/client/server');
    assert.match(text, /^ours-activity\/activity\s+0\.90 \(0\.75-1\.00\)$/m);
    assert.match(text, /^RSS ours-activity\/activity\s+1\.10 \(1\.00-1\.20\)$/m);
  });

  it('compares tracing on with off: throughput, CPU per job of the whole system, and the bytes exported per job', () => {
    const traced = (repeat: number, throughput: number, workerCpu: number, bytes: number): RunResult => ({
      ...run('ours-traced', repeat, throughput, 500),
      cpuSeconds: { worker: workerCpu, client: 0.2, server: 1 },
      traceExport: { bytesPerJob: bytes, requests: 3, sinkCpuSeconds: 0.1 },
    });
    const tracedRuns = [run('ours', 1, 100, 450), traced(1, 80, 1.2, 3000), run('ours', 2, 100, 450), traced(2, 90, 0.9, 3200)];
    assert.deepEqual(rounded(ratios(tracedRuns)), [['ours-traced/ours', 0.85, 0.8, 0.9]]);
    // (1.2 + 0.2 + 1) / 1.6 and (0.9 + 0.2 + 1) / 1.6
    assert.deepEqual(rounded(cpuRatios(tracedRuns)), [['CPU ours-traced/ours', 1.406, 1.313, 1.5]]);
    const summaries = summarise(tracedRuns);
    assert.deepEqual(summaries.map((s) => [s.scenario, s.traceBytesPerJob]), [['ours', null], ['ours-traced', 3100]]);
    const text = formatReport({ startedAt: '', command: '', machine: { cpus: 2, loadAverage: [0] }, options: {}, summaries, ratios: ratios(tracedRuns), rssRatios: rssRatios(tracedRuns), cpuRatios: cpuRatios(tracedRuns), threadCpuRatios: [], runs: tracedRuns });
    assert.match(text, /^ours-traced\/ours\s+0\.85 \(0\.80-0\.90\)$/m);
    assert.match(text, /^CPU ours-traced\/ours\s+1\.41 \(1\.31-1\.50\)$/m);
    assert.match(text, /^ours-traced exported\s+3100 OTLP bytes\/job$/m);
  });

  it('splits the worker’s CPU per job by thread, and pairs each thread with the plain worker’s repeat by repeat', () => {
    const threaded = (scenario: string, repeat: number, main: number, workflow: number): RunResult => ({
      ...run(scenario, repeat, 100, 300),
      workerThreadCpuSeconds: { main, workflow, native: 0.1 },
    });
    const threadRuns = [threaded('activity', 1, 0.2, 0.4), threaded('ours-activity', 1, 0.3, 0.6), threaded('activity', 2, 0.2, 0.5), threaded('ours-activity', 2, 0.2, 0.5)];
    // main: 1.5 and 1.0; workflow: 1.5 and 1.0; native: 1 and 1
    assert.deepEqual(rounded(threadCpuRatios(threadRuns)), [['main ours-activity/activity', 1.25, 1, 1.5], ['workflow ours-activity/activity', 1.25, 1, 1.5], ['native ours-activity/activity', 1, 1, 1]]);
    const summaries = summarise(threadRuns);
    // 100 jobs: (0.3 + 0.2) / 2 s over 100 jobs is 2.5 ms per job, median of 3 and 2
    assert.deepEqual(summaries.find((s) => s.scenario === 'ours-activity')?.workerThreadCpuMsPerJob, { main: 2.5, workflow: 5.5, native: 1 });
    const text = formatReport({ startedAt: '', command: '', machine: { cpus: 2, loadAverage: [0] }, options: {}, summaries, ratios: [], rssRatios: [], cpuRatios: [], threadCpuRatios: threadCpuRatios(threadRuns), runs: threadRuns });
    assert.match(text, /^ours-activity\s+2\.50 \/ 5\.50 \/ 1\.00$/m);
    assert.match(text, /^CPU workflow ours-activity\/activity\s+1\.25 \(1\.00-1\.50\)$/m);
  });
});
