// The failure storm of issue 17: many jobs of one type failing for good at once, while an operator
// reads and redrives the DLQ. What it measures of the DLQ's shard workflows: history events, bytes
// and signals per run, the largest seen in any one run.
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { deadLetterWorkflowIds } from '../../src/catalog/dead-letter-shards';
import type { JobClient } from '../../src/client/job-client';
import { describe as describeError } from '../../src/shared/errors';
import { repoRoot, uniqueId } from './env';
import { runCommand } from './processes';

const type = 'process-payment';

/** The largest figures seen in any one run of a DLQ workflow. */
export interface DlqRunFigures {
  /** DLQ workflows (shards, and the unsharded one if any) that ran. */
  workflows: number;
  /** Runs across them (continue-as-new starts a run). */
  runs: number;
  maxEvents: number;
  maxBytes: number;
  maxSignals: number;
}

/** Reads every run of every DLQ workflow of a type and reports the largest. */
export async function dlqRunFigures(client: Client, taskQueue: string, type: string): Promise<DlqRunFigures> {
  const figures: DlqRunFigures = { workflows: 0, runs: 0, maxEvents: 0, maxBytes: 0, maxSignals: 0 };
  for (const workflowId of deadLetterWorkflowIds(taskQueue, type)) {
    let ran = false;
    for await (const run of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
      ran = true;
      figures.runs += 1;
      const handle = client.workflow.getHandle(workflowId, run.runId);
      const description = await handle.describe();
      const history = await handle.fetchHistory();
      const events = history.events ?? [];
      const signals = events.filter((e) => e.workflowExecutionSignaledEventAttributes).length;
      figures.maxEvents = Math.max(figures.maxEvents, events.length);
      figures.maxSignals = Math.max(figures.maxSignals, signals);
      figures.maxBytes = Math.max(figures.maxBytes, Number(description.raw.workflowExecutionInfo?.historySizeBytes ?? 0));
    }
    if (ran) figures.workflows += 1;
  }
  return figures;
}

/** Polls the live runs of a type's DLQ workflows, keeping the largest history seen (events, bytes). */
export function watchDlqRuns(client: Client, taskQueue: string, type: string, everyMs = 2000): { stop(): Promise<{ maxEvents: number; maxBytes: number }> } {
  const seen = { maxEvents: 0, maxBytes: 0 };
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await Promise.all(
        deadLetterWorkflowIds(taskQueue, type).map(async (id) => {
          const d = await client.workflow.getHandle(id).describe().catch(() => undefined);
          if (!d) return;
          seen.maxEvents = Math.max(seen.maxEvents, d.historyLength);
          seen.maxBytes = Math.max(seen.maxBytes, Number(d.raw.workflowExecutionInfo?.historySizeBytes ?? 0));
        }),
      );
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return seen;
    },
  };
}

/** Runs jobctl in a process that reports its own peak RSS (KiB) on exit, and counts its output lines. */
export async function jobctlMaxRss(jobctlEnv: NodeJS.ProcessEnv, args: string[]): Promise<{ maxRssKb: number; lines: number }> {
  const script = `require(${JSON.stringify(path.join(repoRoot, 'dist/jobctl/cli.js'))}).main(['node', 'jobctl', ...${JSON.stringify(args)}])` +
    `.then((code) => process.stdout.write('', () => { process.stderr.write('maxrss=' + process.resourceUsage().maxRSS + '\\n'); process.exit(code); }))`;
  const ran = await runCommand(process.execPath, ['-e', script], { ...process.env, ...jobctlEnv });
  const maxRssKb = Number(/maxrss=(\d+)/.exec(ran.stderr)?.[1]);
  if (ran.code !== 0 || !maxRssKb) throw new Error(`jobctl ${args.join(' ')}: exit ${ran.code}: ${ran.stderr}`);
  return { maxRssKb, lines: ran.stdout.split('\n').length };
}

/** Runs `task` over `items` with at most `concurrency` at once. */
export async function inParallel<T>(items: T[], concurrency: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await task(items[next++]!);
  }));
}

/** What a storm runs against: a server, a client on it, a task queue served by workers. */
export interface StormTarget {
  client: Client;
  jobs: JobClient;
  taskQueue: string;
  /** Environment for jobctl to reach the server (address, namespace, task queue). */
  jobctlEnv: NodeJS.ProcessEnv;
}

/**
 * Fails `stormJobs` payments to an unknown account as fast as the workers go, while an operator
 * pages, groups, asks jobctl, dry-runs the whole group and redrives a sample with a patch; then
 * checks that every job is in the DLQ exactly once and none is left Running, and reports (and
 * bounds) the largest DLQ run. Returns the figures line.
 */
export async function runStorm({ client, jobs, taskQueue, jobctlEnv }: StormTarget, stormJobs: number): Promise<string> {
  const jobctl = (...args: string[]) => runCommand(process.execPath, [path.join(repoRoot, 'bin/jobctl.js'), ...args], { ...process.env, ...jobctlEnv });
  const prefix = uniqueId('storm');
  const ids = Array.from({ length: stormJobs }, (_, i) => `${prefix}-${i}`);
  const operatorErrors: string[] = [];
  const operations = { pages: 0, groups: 0, cli: 0, redriven: 0, dryRun: 0 };
  const redriveSample = Math.max(10, Math.floor(stormJobs / 100));
    const watch = watchDlqRuns(client, taskQueue, type);
    const started = Date.now();
    let enqueued = false;
    const enqueue = inParallel(ids, 32, async (id) => {
      await jobs.enqueue(type, { paymentId: id, fromAccount: 'alice', toAccount: 'nobody', amount: 1, currency: 'EUR' }, { id });
    }).then(() => (enqueued = true));

    // The operator: pages through the DLQ, groups it, asks jobctl, and once half the storm is in,
    // dry-runs the whole group and redrives a sample with a patch that fixes the account.
    const operator = (async () => {
      let redrove = false;
      for (let round = 0; ; round++) {
        const step = async <T>(name: keyof typeof operations, run: () => Promise<T>): Promise<T | undefined> => {
          try {
            const value = await run();
            operations[name] += 1;
            return value;
          } catch (err) {
            operatorErrors.push(`${name}: ${describeError(err)}`);
            return undefined;
          }
        };
        let cursor: string | undefined;
        for (let p = 0; p < 3; p++) {
          const page = await step('pages', () => jobs.deadLetters.page({ type, limit: 200, cursor }));
          cursor = page?.nextCursor;
          if (!cursor) break;
        }
        const groups = await step('groups', () => jobs.deadLetters.groups(type));
        if (round % 5 === 0) {
          await step('cli', async () => {
            const listed = await jobctl('dlq', 'list', '--type', type, '--limit', '50', '--json');
            if (listed.code !== 0) throw new Error(`jobctl dlq list: ${listed.stderr}`);
            JSON.parse(listed.stdout);
          });
        }
        const inDlq = groups?.reduce((n, g) => n + g.count, 0) ?? 0;
        if (!redrove && inDlq >= stormJobs / 2) {
          redrove = true;
          const fingerprint = groups![0]!.fingerprint;
          let planned = 0;
          await step('dryRun', async () => {
            for await (const o of jobs.deadLetters.redriveAll({ type, fingerprint }, { dryRun: true })) if (o.dryRun) planned += 1;
          });
          assert.ok(planned >= inDlq * 0.9, `the dry run planned ${planned} of the ${inDlq} counted`);
          const sample = (await jobs.deadLetters.page({ type, fingerprint, limit: redriveSample })).entries;
          for (const o of await jobs.deadLetters.redriveMany(sample, { patch: { toAccount: 'bob' }, reason: 'storm: provider back' })) {
            if (o.error) operatorErrors.push(`redrive ${o.id}: ${o.error}`);
            else operations.redriven += 1;
          }
        }
        const counts = await step('groups', () => jobs.deadLetters.counts());
        const total = counts ? Object.values(counts[type] ?? {}).reduce((n, c) => n + c, 0) : 0;
        if (enqueued && redrove && total >= stormJobs) return;
        await new Promise((r) => setTimeout(r, 1000));
      }
    })();
    await enqueue;
    const enqueueSeconds = (Date.now() - started) / 1000;
    await operator;
    const stormSeconds = (Date.now() - started) / 1000;

    // Every job closed: none left Running behind a hand-off that failed (the redriven sample
    // finishes on its own time; visibility lags a moment behind).
    const runningQuery = `TaskQueue = '${taskQueue}' AND WorkflowType = 'processPaymentWorkflow' AND ExecutionStatus = 'Running'`;
    let running = await client.workflow.count(runningQuery);
    for (let i = 0; i < 60 && running.count > 0; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      running = await client.workflow.count(runningQuery);
    }
    const live = await watch.stop();

    // The CLI's memory over the whole group (a dry run streams every entry) against one page of it.
    const fingerprint = (await jobs.deadLetters.groups(type))[0]!.fingerprint;
    const onePage = await jobctlMaxRss(jobctlEnv, ['dlq', 'list', '--type', type, '--limit', '1', '--json']);
    const wholeGroup = await jobctlMaxRss(jobctlEnv, ['dlq', 'redrive', '--type', type, '--fingerprint', fingerprint, '--dry-run', '--json']);

    // Every job in the DLQ exactly once: dead-lettered, or redriven (and completed) for the sample.
    const seen = new Map<string, string>();
    for await (const e of jobs.deadLetters.entries({ type, status: 'all' })) {
      assert.ok(!seen.has(e.id), `${e.id} listed twice`);
      seen.set(e.id, e.status);
    }
    const figures = await dlqRunFigures(client, taskQueue, type);
    const line = `storm: ${stormJobs} payments enqueued in ${enqueueSeconds.toFixed(0)} s, all in the DLQ after ${stormSeconds.toFixed(0)} s ` +
      `(${(stormJobs / stormSeconds).toFixed(0)} hand-offs/s); DLQ: ${figures.workflows} workflows, ${figures.runs} runs; largest run: ` +
      `${figures.maxEvents} events, ${(Math.max(figures.maxBytes, live.maxBytes) / 1024).toFixed(0)} KiB, ${figures.maxSignals} signals; operator: ${JSON.stringify(operations)}; ` +
      `jobctl peak RSS: ${(onePage.maxRssKb / 1024).toFixed(0)} MiB for one entry, ${(wholeGroup.maxRssKb / 1024).toFixed(0)} MiB for a dry run of all ${wholeGroup.lines} lines`;
    console.log(`      ${line}`);

    // First: an operator call that failed explains a count below (a redrive answered with an error was applied, once).
    assert.deepEqual(operatorErrors, [], 'no operator call failed');
    assert.equal(running.count, 0, 'no job left Running');
    assert.equal(seen.size, stormJobs, 'every failed job has an entry');
    for (const id of ids) assert.ok(seen.has(id), `${id} is in the DLQ`);
    assert.equal([...seen.values()].filter((s) => s === 'redriven').length, operations.redriven);
    // Temporal's limits per run: 51,200 events, 50 MB, 10,000 signals. A run continues as new at
    // 4,000 events or 2,000 signals (plus what arrives during its hand-over): a tenth, a tenth and a fifth.
    assert.ok(Math.max(figures.maxEvents, live.maxEvents) <= 5120, `events per run ${figures.maxEvents}`);
    assert.ok(Math.max(figures.maxBytes, live.maxBytes) <= 5 * 1024 * 1024, `bytes per run ${figures.maxBytes}`);
    assert.ok(figures.maxSignals <= 2200, `signals per run ${figures.maxSignals}`);
    assert.ok(wholeGroup.maxRssKb <= onePage.maxRssKb + 64 * 1024, `jobctl's memory stays bounded: ${wholeGroup.maxRssKb} KiB against ${onePage.maxRssKb} KiB`);
    return line;
  }
