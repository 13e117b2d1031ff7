import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { checkFlowControl, flowControlProblems, flowControlStartDev, readFlowControl, type FlowControlSupport } from '../../src/client/flow-control-check';
import { customSearchAttributes } from '../../src/shared/search-attributes';
import { startBareTemporal, type BareTemporal } from '../helpers/bare-temporal';
import { repoRoot, uniqueId } from '../helpers/env';
import { runCommand, startProcess, type Started } from '../helpers/processes';
import { killIfRunning, startTestTemporal, type TestTemporal } from '../helpers/worker-process';

interface Server {
  address: string;
  client: Client;
  connection: Connection;
  bare?: BareTemporal;
}

// No API reports a server's dynamic config: the check reads a queue's partitions and probes the
// matcher. Three real dev servers: the CLI's defaults (4 partitions, fairness off), one partition
// with fairness and the new matcher off, and the library's own (fairness on, one partition).
describe('flow control: what the server does for fairness, priorities and rates per key (real dev servers)', function () {
  this.timeout(300_000);
  let plain: Server;
  let onePartition: Server;
  let library: Server & { temporal: TestTemporal };
  let worker: Started | undefined;

  async function startCliServer(dynamicConfig: string[]): Promise<Server> {
    // The jobs' search attributes, as a worker would register them (jobctl stats counts by them).
    const attributes = Object.entries(customSearchAttributes).flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]);
    const bare = await startBareTemporal(undefined, [...attributes, ...dynamicConfig.flatMap((v) => ['--dynamic-config-value', v])]);
    const connection = await Connection.connect({ address: bare.address });
    return { address: bare.address, connection, client: new Client({ connection }), bare };
  }

  before(async () => {
    plain = await startCliServer([]);
    onePartition = await startCliServer(['matching.numTaskqueueReadPartitions=1', 'matching.numTaskqueueWritePartitions=1']);
    const temporal = await startTestTemporal();
    const connection = await Connection.connect({ address: temporal.address });
    library = { address: temporal.address, connection, client: new Client({ connection }), temporal };
  });

  after(async () => {
    if (worker) await killIfRunning(worker);
    for (const s of [plain, onePartition, library]) {
      await s?.connection.close();
      await s?.bare?.stop();
    }
    await library?.temporal.stop();
  });

  it('finds each server\'s partitions, matcher and fairness, records them, and names what will not hold', async () => {
    const taskQueue = uniqueId('flow');
    const found: Record<string, FlowControlSupport> = {};
    for (const [name, server] of [['plain', plain], ['one partition', onePartition], ['library', library]] as const) found[name] = await checkFlowControl(server.client, taskQueue);
    const shape = (s: FlowControlSupport) => [s.partitions, s.priority, s.fairness];
    assert.deepEqual(shape(found.plain!), [4, 'unknown', 'unknown'], 'across 4 partitions the order is the partitions\' draw: not checked');
    assert.deepEqual(shape(found['one partition']!), [1, 'off', 'off']);
    assert.deepEqual(shape(found.library!), [1, 'on', 'on']);

    const [inexact] = flowControlProblems(found.plain!);
    assert.match(inexact ?? '', /has 4 partitions \(matching\.numTaskqueueReadPartitions, matching\.numTaskqueueWritePartitions\): .* inexact/);
    const ignored = flowControlProblems(found['one partition']!);
    assert.match(ignored[0] ?? '', /fairness is off on this server \(matching\.enableFairness\): fairness keys and weights and rates per key are ignored/);
    assert.match(ignored[1] ?? '', /the new matcher is off on this server \(matching\.useNewMatcher\): priorities \(--priority\) are ignored/);
    assert.deepEqual(flowControlProblems(found.library!), []);
    // Only what a catalog declares is held against the server.
    assert.deepEqual(flowControlProblems(found['one partition']!, { priority: true }).length, 1);

    // Recorded where jobctl stats reads it without probing; the probe's workflows are gone.
    assert.deepEqual(await readFlowControl(onePartition.client, taskQueue), found['one partition']);
    const leftover = await onePartition.client.workflow.count(`WorkflowType = 'durable-jobs-flow-control-probe' AND ExecutionStatus = 'Running'`);
    assert.equal(leftover.count, 0, 'every probe workflow was terminated');
  });

  it('jobctl doctor warns, naming the settings and the start-dev line to copy; jobctl stats then shows the recorded check', async () => {
    const taskQueue = uniqueId('flow-doctor');
    const env = { ...process.env, TEMPORAL_ADDRESS: plain.address, TEMPORAL_TASK_QUEUE: taskQueue };
    const jobctl = (...args: string[]) => runCommand(process.execPath, [path.join(repoRoot, 'bin/jobctl.js'), ...args], env, repoRoot);
    const doctor = await jobctl('doctor', '--json');
    const check = (JSON.parse(doctor.stdout) as { checks: { name: string; status: string; detail: string; fix?: string }[] }).checks.find((c) => c.name === 'flow control');
    assert.equal(check?.status, 'warn', doctor.stdout);
    assert.match(check!.detail, /4 partition\(s\): .*inexact/);
    assert.ok(check!.fix?.includes(flowControlStartDev), check!.fix);
    assert.equal(flowControlStartDev, 'temporal server start-dev --dynamic-config-value matching.useNewMatcher=true --dynamic-config-value matching.enableFairness=true --dynamic-config-value matching.numTaskqueueReadPartitions=1 --dynamic-config-value matching.numTaskqueueWritePartitions=1');
    const text = await jobctl('doctor');
    assert.ok(text.stdout.includes(flowControlStartDev), text.stdout);

    const stats = await jobctl('stats');
    assert.equal(stats.code, 0, stats.stderr);
    assert.match(stats.stdout, /flow control on the server: fairness unknown, priority order unknown, 4 partition\(s\), checked \S+:\n {2}task queue .* has 4 partitions/);
  });

  it('a worker whose catalog declares fairness says at start that the server ignores it, naming the setting and the fix', async () => {
    const taskQueue = uniqueId('flow-worker');
    worker = startProcess(
      process.execPath,
      ['--require', 'tsx/cjs', path.join(repoRoot, 'src/worker/main.ts')],
      { ...process.env, TEMPORAL_ADDRESS: onePartition.address, TEMPORAL_TASK_QUEUE: taskQueue, DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'flow-worker-')), DATABASE_URL: undefined, LOG_LEVEL: 'info', LOG_FORMAT: 'json', METRICS_PORT: '0' },
      repoRoot,
    );
    await worker.waitFor('worker:flow-control', 180_000);
    const line = worker.output().split('\n').find((l) => l.includes('worker:flow-control'))!;
    const logged = JSON.parse(line) as { level: number | string; fairness: string; problems: string[]; fix: string };
    assert.ok(logged.level === 40 || logged.level === 'warn', line);
    assert.equal(logged.fairness, 'off');
    assert.match(logged.problems.join(' '), /matching\.enableFairness/);
    assert.ok(logged.fix.includes(flowControlStartDev), logged.fix);
  });
});
