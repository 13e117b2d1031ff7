import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { freePort, startProcess } from './processes';

/**
 * `prometheus` or `promtool` from PATH. Missing, it throws saying how to install it: a test that
 * needs Prometheus fails rather than skips. `.ci/run` installs Debian's `prometheus` package, which ships both.
 */
export function prometheusTool(name: 'prometheus' | 'promtool'): string {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  const found = dirs.map((dir) => path.join(dir, name)).find((file) => existsSync(file));
  if (!found) throw new Error(`${name} not found on PATH: install Prometheus (Debian: apt-get install prometheus, which ships prometheus and promtool; .ci/run does this)`);
  return found;
}

/** The parts of a Prometheus config file that {@link testScrapeConfig} reads; the rest is carried over untouched. */
interface PrometheusConfig {
  global?: Record<string, unknown>;
  scrape_configs?: ({ job_name: string; dns_sd_configs?: unknown[]; static_configs?: unknown[] } & Record<string, unknown>)[];
}

/**
 * deploy/prometheus/prometheus.yml as a test runs it. The shipped file finds the worker replicas
 * through Docker's DNS (`dns_sd_configs` on the compose service name `worker`), which resolves
 * nowhere else, so each scrape job's discovery is replaced by one static target: the test
 * worker's `host:port`. Scrapes happen every `scrapeInterval` (a test cannot wait 15s per
 * sample). Everything else the file says (the job names, the evaluation interval, the default
 * metrics path and scheme) is kept as shipped. A discovery other than DNS throws, so a change to
 * the shipped file that this does not understand is noticed rather than tested around.
 */
export function testScrapeConfig(shipped: string, target: string, scrapeInterval: string): string {
  const config = parse(shipped) as PrometheusConfig;
  if (!config.scrape_configs?.length) throw new Error('the Prometheus config has no scrape_configs');
  for (const job of config.scrape_configs) {
    const discovery = Object.keys(job).filter((key) => key.endsWith('_configs'));
    if (discovery.join() !== 'dns_sd_configs') throw new Error(`scrape job ${job.job_name}: finds its targets with ${discovery.join(', ') || 'nothing'}; testScrapeConfig knows how to replace dns_sd_configs only`);
    delete job.dns_sd_configs;
    job.static_configs = [{ targets: [target] }];
    if (job.scrape_interval !== undefined) faster(job, scrapeInterval);
  }
  config.global = faster({ ...config.global }, scrapeInterval);
  return stringify(config);
}

/** Scrapes every `interval`, and times out within it (Prometheus refuses a timeout longer than the interval). */
function faster(section: Record<string, unknown>, interval: string): Record<string, unknown> {
  section.scrape_interval = interval;
  if (section.scrape_timeout !== undefined) section.scrape_timeout = interval;
  return section;
}

/** One series of an instant query's result. */
export interface PromSample {
  metric: Record<string, string>;
  /** Evaluation time (Unix seconds) and the value as Prometheus prints it (`"0.5"`, `"NaN"`, `"+Inf"`). */
  value: [number, string];
}

/** A Prometheus server a test started. */
export interface TestPrometheus {
  /** Its base URL, `http://127.0.0.1:<port>`. */
  url: string;
  /** Evaluates an instant query now (`/api/v1/query`); throws with Prometheus's own error for a query it refuses. */
  query: (expr: string) => Promise<PromSample[]>;
  /** Its log. */
  output: () => string;
  /** Stops it (SIGTERM) and removes its storage. */
  stop: () => Promise<void>;
}

/**
 * Starts `prometheus` with `config` on a free loopback port and a temp storage directory, and
 * waits until it is ready (`/-/ready`).
 */
export async function startPrometheus(config: string, readyTimeoutMs = 30_000): Promise<TestPrometheus> {
  const binary = prometheusTool('prometheus');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'durable-jobs-prometheus-'));
  const configFile = path.join(dir, 'prometheus.yml');
  await writeFile(configFile, config);
  const url = `http://127.0.0.1:${await freePort()}`;
  const started = startProcess(binary, [`--config.file=${configFile}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=${url.slice('http://'.length)}`], process.env, dir);
  const stop = async () => {
    if (started.child.exitCode === null && started.child.signalCode === null) {
      started.child.kill('SIGTERM');
      await started.exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + readyTimeoutMs;
  while (!(await fetch(`${url}/-/ready`).then((r) => r.ok, () => false))) {
    const failure = started.child.exitCode !== null ? `exited (${started.child.exitCode})` : Date.now() > deadline ? `not ready after ${readyTimeoutMs} ms` : undefined;
    if (failure) {
      await stop();
      throw new Error(`prometheus ${failure}:\n${started.output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const query = async (expr: string): Promise<PromSample[]> => {
    const response = await fetch(`${url}/api/v1/query?${new URLSearchParams({ query: expr })}`);
    const body = (await response.json()) as { status: string; error?: string; errorType?: string; data?: { resultType: string; result: PromSample[] } };
    if (body.status !== 'success') throw new Error(`prometheus refused ${expr}: ${body.errorType}: ${body.error}`);
    if (body.data?.resultType !== 'vector') throw new Error(`${expr}: expected an instant vector, got a ${body.data?.resultType}`);
    return body.data.result;
  };
  return { url, query, output: started.output, stop };
}
