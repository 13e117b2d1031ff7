import type { RunResult } from './run';
import type { ThreadCpu } from './threads';
import { median, spread, type Spread } from './stats';

/** One scenario's runs, summarised across repeats (medians). */
export interface ScenarioSummary {
  scenario: string;
  server: string;
  runs: number;
  /** Jobs per second: median and range across repeats. */
  throughput: Spread;
  enqueueToStart: { p50: number; p95: number; p99: number };
  enqueueToComplete: { p50: number; p95: number; p99: number };
  /** CPU milliseconds per job, by process. */
  cpuMsPerJob: { worker: number | null; client: number; server: number | null };
  /** The worker's CPU milliseconds per job by thread (medians); null without /proc's split. */
  workerThreadCpuMsPerJob: ThreadCpu | null;
  workerPeakRssMb: number | null;
  notCompleted: number;
  /** History events per job (median). */
  eventsPerJob: number;
  /** A traced scenario's OTLP bytes exported per job (median); null untraced. */
  traceBytesPerJob: number | null;
}

/** A throughput ratio: the median over repeats of the ratio within each repeat (so both sides saw the same load on the machine). */
export interface Ratio {
  name: string;
  median: number;
  min: number;
  max: number;
}

/** The whole report, as written to JSON. */
export interface BenchReport {
  startedAt: string;
  command: string;
  machine: { cpus: number; loadAverage: number[] };
  options: Record<string, unknown>;
  summaries: ScenarioSummary[];
  ratios: Ratio[];
  /** Our worker's peak RSS over the plain worker's on the same server kind, repeat by repeat. */
  rssRatios: Ratio[];
  /** CPU per job of the whole system: `ours-traced` against `ours`, `ours` against `ours-before`. */
  cpuRatios: Ratio[];
  /** Our worker's CPU per job in its main thread and in its workflow thread(s) over the plain worker's, repeat by repeat. */
  threadCpuRatios: Ratio[];
  runs: RunResult[];
}

const med = (values: (number | null)[]): number | null => {
  const known = values.filter((v): v is number => v !== null);
  return known.length ? median(known) : null;
};

/** Summarises runs per scenario. */
export function summarise(runs: RunResult[]): ScenarioSummary[] {
  const names = [...new Set(runs.map((r) => r.scenario))];
  return names.map((scenario) => {
    const rs = runs.filter((r) => r.scenario === scenario);
    const pct = (pick: (r: RunResult) => { p50: number; p95: number; p99: number }) => ({
      p50: median(rs.map((r) => pick(r).p50)),
      p95: median(rs.map((r) => pick(r).p95)),
      p99: median(rs.map((r) => pick(r).p99)),
    });
    const perJob = (pick: (r: RunResult) => number | null) => med(rs.map((r) => { const v = pick(r); return v === null ? null : (v * 1000) / r.jobs; }));
    return {
      scenario,
      server: rs[0]!.server,
      runs: rs.length,
      throughput: spread(rs.map((r) => r.throughput)),
      enqueueToStart: pct((r) => r.enqueueToStart),
      enqueueToComplete: pct((r) => r.enqueueToComplete),
      cpuMsPerJob: { worker: perJob((r) => r.cpuSeconds.worker), client: perJob((r) => r.cpuSeconds.client)!, server: perJob((r) => r.cpuSeconds.server) },
      workerThreadCpuMsPerJob: rs.every((r) => r.workerThreadCpuSeconds)
        ? { main: perJob((r) => r.workerThreadCpuSeconds!.main)!, workflow: perJob((r) => r.workerThreadCpuSeconds!.workflow)!, native: perJob((r) => r.workerThreadCpuSeconds!.native)! }
        : null,
      workerPeakRssMb: med(rs.map((r) => r.workerPeakRssMb)),
      notCompleted: rs.reduce((n, r) => n + r.notCompleted, 0),
      eventsPerJob: median(rs.map((r) => r.eventsPerJob)),
      traceBytesPerJob: med(rs.map((r) => r.traceExport?.bytesPerJob ?? null)),
    };
  });
}

/** The scenario pairs whose throughput is compared: ours against plain Temporal, and the eager start against ours. */
const throughputPairs = [
  ['ours', 'baseline'],
  ['ours', 'ceiling'],
  ['ours-failures', 'baseline'],
  ['ours-failures', 'ceiling'],
  ['ours-activity', 'activity'],
  ['ours-eager', 'ours'],
  ['ours-eager', 'baseline'],
  ['ours-eager', 'ceiling'],
  ['ours-traced', 'ours'],
  ['ours-traced', 'ceiling'],
  ['ours', 'ours-before'],
  ['ours-before', 'ceiling'],
  ['ours-activity', 'ours-activity-before'],
  ['ours-activity-before', 'activity'],
] as const;

/** Our workers against the plain worker (bench/plain/worker.ts) on the same server kind, for peak RSS. */
const rssPairs = [
  ['ours', 'ceiling'],
  ['ours-failures', 'ceiling'],
  ['ours-activity', 'activity'],
  ['ours-eager', 'ceiling'],
  ['ours-traced', 'ceiling'],
  ['ours', 'ours-before'],
  ['ours-activity', 'ours-activity-before'],
] as const;

/** The CPU per job of the whole system (worker, client and server): tracing on against off, this build against `--before`'s. */
const cpuPairs = [
  ['ours-traced', 'ours'],
  ['ours', 'ours-before'],
  ['ours-activity', 'ours-activity-before'],
] as const;

/** a/b of one measure for each pair, taken within each repeat; the median and range over repeats. */
function pairRatios(runs: RunResult[], pairs: readonly (readonly [string, string])[], measure: (r: RunResult) => number | null): Ratio[] {
  const out: Ratio[] = [];
  for (const [a, b] of pairs) {
    const values: number[] = [];
    for (const repeat of new Set(runs.map((r) => r.repeat))) {
      const x = runs.find((r) => r.scenario === a && r.repeat === repeat);
      const y = runs.find((r) => r.scenario === b && r.repeat === repeat);
      const [mx, my] = [x && measure(x), y && measure(y)];
      if (typeof mx === 'number' && typeof my === 'number' && my > 0) values.push(mx / my);
    }
    if (values.length) out.push({ name: `${a}/${b}`, ...spread(values) });
  }
  return out;
}

/** ours/baseline, ours/ceiling, ours-activity/activity (and the same for ours-failures and ours-eager): throughput, repeat by repeat. */
export function ratios(runs: RunResult[]): Ratio[] {
  return pairRatios(runs, throughputPairs, (r) => r.throughput);
}

/** CPU per job of worker, client and server together (tracing on over off, this build over `--before`'s), repeat by repeat. */
export function cpuRatios(runs: RunResult[]): Ratio[] {
  const total = (r: RunResult) => (r.cpuSeconds.worker === null || r.cpuSeconds.server === null ? null : r.cpuSeconds.worker + r.cpuSeconds.client + r.cpuSeconds.server);
  return pairRatios(runs, cpuPairs, total).map((r) => ({ ...r, name: `CPU ${r.name}` }));
}

/** Our worker's CPU per job in each kind of thread over the plain worker's in the same repeat (main ours-activity/activity, …). */
export function threadCpuRatios(runs: RunResult[]): Ratio[] {
  return (['main', 'workflow', 'native'] as const).flatMap((thread) =>
    pairRatios(runs, rssPairs, (r) => (r.workerThreadCpuSeconds ? r.workerThreadCpuSeconds[thread] : null)).map((r) => ({ ...r, name: `${thread} ${r.name}` })),
  );
}

/** Our worker's peak RSS over the plain worker's in the same repeat (ours/ceiling, ours-activity/activity, …). */
export function rssRatios(runs: RunResult[]): Ratio[] {
  return pairRatios(runs, rssPairs, (r) => r.workerPeakRssMb);
}

const f = (v: number | null, digits = 1) => (v === null || Number.isNaN(v) ? '-' : v.toFixed(digits));

/** The table `npm run bench` prints. */
export function formatReport(report: BenchReport): string {
  const head = ['scenario', 'jobs/s (min-max)', 'start p50/p95/p99 ms', 'done p50/p95/p99 ms', 'CPU ms/job worker/client/server', 'worker RSS MB', 'events/job', 'failed'];
  const rows = report.summaries.map((s) => [
    s.scenario,
    `${f(s.throughput.median)} (${f(s.throughput.min)}-${f(s.throughput.max)})`,
    `${f(s.enqueueToStart.p50, 0)}/${f(s.enqueueToStart.p95, 0)}/${f(s.enqueueToStart.p99, 0)}`,
    `${f(s.enqueueToComplete.p50, 0)}/${f(s.enqueueToComplete.p95, 0)}/${f(s.enqueueToComplete.p99, 0)}`,
    `${f(s.cpuMsPerJob.worker)}/${f(s.cpuMsPerJob.client)}/${f(s.cpuMsPerJob.server)}`,
    f(s.workerPeakRssMb, 0),
    f(s.eventsPerJob, 0),
    String(s.notCompleted),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  const lines = [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line), ''];
  for (const r of report.ratios) lines.push(`${r.name.padEnd(28)} ${f(r.median, 2)} (${f(r.min, 2)}-${f(r.max, 2)})`);
  if (report.rssRatios.length) lines.push('', 'worker peak RSS, ours / plain worker:');
  for (const r of report.rssRatios) lines.push(`${`RSS ${r.name}`.padEnd(28)} ${f(r.median, 2)} (${f(r.min, 2)}-${f(r.max, 2)})`);
  if (report.cpuRatios.length) lines.push('', 'CPU per job (worker + client + server):');
  for (const r of report.cpuRatios) lines.push(`${r.name.padEnd(28)} ${f(r.median, 2)} (${f(r.min, 2)}-${f(r.max, 2)})`);
  const byThread = report.summaries.filter((s) => s.workerThreadCpuMsPerJob);
  if (byThread.length) lines.push('', 'worker CPU ms/job by thread: main / workflow thread(s) / native (Rust core, GC, libuv):');
  for (const s of byThread) lines.push(`${s.scenario.padEnd(28)} ${f(s.workerThreadCpuMsPerJob!.main, 2)} / ${f(s.workerThreadCpuMsPerJob!.workflow, 2)} / ${f(s.workerThreadCpuMsPerJob!.native, 2)}`);
  for (const r of report.threadCpuRatios) lines.push(`${`CPU ${r.name}`.padEnd(36)} ${f(r.median, 2)} (${f(r.min, 2)}-${f(r.max, 2)})`);
  const traced = report.summaries.filter((s) => s.traceBytesPerJob !== null);
  for (const s of traced) lines.push(`${`${s.scenario} exported`.padEnd(28)} ${f(s.traceBytesPerJob!, 0)} OTLP bytes/job`);
  return lines.join('\n');
}
