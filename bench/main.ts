// `npm run bench`: how fast jobs move, against plain Temporal and the server's ceiling.
// Runs each scenario on a fresh server, interleaved (ceiling, baseline, ours, ours-failures,
// activity, ours-activity, then again), so that every ratio compares runs that saw the same machine
// load. See docs/performance.md.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { provisionTemporalCli } from '../src/provision/temporal-cli';
import { loadConfig } from '../src/shared/config';
import { cpuRatios, formatReport, ratios, rssRatios, summarise, threadCpuRatios, type BenchReport } from './report';
import { runScenario, stopCurrentRun, type RunResult } from './run';
import { defaultScenarios, scenarioNames, scenarios, type ScenarioName } from './scenarios';
import { repoRoot } from './workers';

const usage = `npm run bench -- [--jobs N] [--repeat R] [--rate R] [--concurrency C] [--scenarios a,b] [--log-level L] [--profile DIR] [--before DIR] [--out FILE]
  --jobs N         jobs per run (default 2000)
  --repeat R       runs of each scenario, interleaved (default 3); the report shows medians and ranges
  --rate R         offer R jobs/s (paced, open loop) instead of ${'100'} callers enqueueing as fast as they can
  --concurrency C  callers in the closed-loop mode (default 100)
  --scenarios      comma-separated, from ${scenarioNames.join(', ')} (default ${defaultScenarios.join(', ')})
  --log-level L    LOG_LEVEL of our worker (default info, as npm start)
  --profile DIR    write a V8 CPU profile of each worker into DIR
  --before DIR     a built checkout of an earlier commit: scenario ours-before runs its worker (adds ours-before if no
                   before scenario is named), ours-activity-before its bench/activity worker
  --out FILE       JSON report (default .data/bench/bench-<time>.json)
TEMPORAL_ADDRESS: run every scenario on that server instead of fresh ones (no server CPU figures).`;

/** Parsed command line. */
export interface BenchOptions {
  jobs: number;
  repeat: number;
  rate?: number;
  concurrency: number;
  scenarios: ScenarioName[];
  logLevel?: string;
  profileDir?: string;
  /** A built checkout whose worker `ours-before` runs. */
  beforeRoot?: string;
  out: string;
}

function positive(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number (got ${value})`);
  return n;
}

/** Parses the command line; throws with the usage on a bad option. */
export function parseBenchArgs(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      jobs: { type: 'string' },
      repeat: { type: 'string' },
      rate: { type: 'string' },
      concurrency: { type: 'string' },
      scenarios: { type: 'string' },
      'log-level': { type: 'string' },
      profile: { type: 'string' },
      before: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) throw new Error(usage);
  const chosen = (values.scenarios?.split(',') ?? [...defaultScenarios]).map((s) => s.trim());
  const unknown = chosen.filter((s) => !(scenarioNames as readonly string[]).includes(s));
  if (unknown.length) throw new Error(`unknown scenario ${unknown.join(', ')}; choose from ${scenarioNames.join(', ')}\n${usage}`);
  const beforeRoot = values.before ? path.resolve(values.before) : undefined;
  if (beforeRoot && !existsSync(path.join(beforeRoot, 'dist/worker/main.js'))) throw new Error(`--before ${values.before}: ${path.join(beforeRoot, 'dist/worker/main.js')} is missing (check out the earlier commit there and run npm ci and npm run build)`);
  const beforeScenarios = chosen.filter((s) => scenarios[s as ScenarioName].before);
  if (beforeRoot && beforeScenarios.length === 0) chosen.push('ours-before');
  if (!beforeRoot && beforeScenarios.length > 0) throw new Error(`scenario ${beforeScenarios.join(', ')} runs another build's worker: give --before DIR\n${usage}`);
  return {
    jobs: Math.round(positive('jobs', values.jobs, 2000)),
    repeat: Math.round(positive('repeat', values.repeat, 3)),
    rate: values.rate === undefined ? undefined : positive('rate', values.rate, 0),
    concurrency: Math.round(positive('concurrency', values.concurrency, 100)),
    scenarios: chosen as ScenarioName[],
    logLevel: values['log-level'],
    profileDir: values.profile ? path.resolve(values.profile) : undefined,
    beforeRoot,
    out: path.resolve(values.out ?? path.join(repoRoot, '.data/bench', `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`)),
  };
}

/** Runs the bench and returns its report (also written to `options.out`). */
export async function runBench(options: BenchOptions, log: (line: string) => void = console.log): Promise<BenchReport> {
  const config = loadConfig();
  const externalAddress = process.env.TEMPORAL_ADDRESS || undefined;
  const cliPath = externalAddress ? '' : (await provisionTemporalCli({ cacheDir: config.cacheDir, temporalCliPath: config.temporalCliPath })).value;
  const startedAt = new Date().toISOString();
  const runs: RunResult[] = [];
  const report = (): BenchReport => ({
    startedAt,
    command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim(),
    machine: { cpus: os.cpus().length, loadAverage: os.loadavg() },
    options: { ...options },
    summaries: summarise(runs),
    ratios: ratios(runs),
    rssRatios: rssRatios(runs),
    cpuRatios: cpuRatios(runs),
    threadCpuRatios: threadCpuRatios(runs),
    runs,
  });
  await mkdir(path.dirname(options.out), { recursive: true });
  for (let repeat = 1; repeat <= options.repeat; repeat++) {
    for (const name of options.scenarios) {
      log(`run ${repeat}/${options.repeat}: ${name} (${scenarios[name].description}), ${options.jobs} jobs${options.rate ? ` at ${options.rate}/s` : ''}`);
      const result = await runScenario(scenarios[name], {
        jobs: options.jobs,
        concurrency: options.concurrency,
        rate: options.rate,
        cliPath,
        externalAddress,
        logLevel: options.logLevel,
        cpuProfileDir: options.profileDir,
        beforeRoot: options.beforeRoot,
        repeat,
      });
      log(`  ${result.throughput.toFixed(1)} jobs/s, enqueue→start p50 ${result.enqueueToStart.p50} ms, enqueue→done p50 ${result.enqueueToComplete.p50} ms`);
      runs.push(result);
      // Written after every run, so an interrupted bench keeps what it measured.
      await writeFile(options.out, JSON.stringify(report(), null, 2) + '\n');
    }
  }
  const final = report();
  return final;
}

if (require.main === module) {
  let options: BenchOptions;
  try {
    options = parseBenchArgs(process.argv.slice(2));
  } catch (err) {
    console.error((err as Error).message);
    process.exit(2);
  }
  // Ctrl-C stops the run's server and worker too (the dev server has its own process group).
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void (stopCurrentRun.current?.() ?? Promise.resolve()).finally(() => process.exit(130)));
  }
  runBench(options)
    .then((report) => {
      console.log(`\n${formatReport(report)}\n\nJSON: ${options.out}`);
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
