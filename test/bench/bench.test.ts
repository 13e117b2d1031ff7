import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseBenchArgs, runBench } from '../../bench/main';
import { formatReport, type BenchReport } from '../../bench/report';
import { defaultScenarios } from '../../bench/scenarios';

// Keeps `npm run bench` from rotting: every scenario runs end to end with a handful of jobs. No
// figure is asserted: speed lives in the bench's own report, never in a test.
describe('npm run bench (a few jobs)', function () {
  this.timeout(600_000);
  let dir: string;
  before(async function () {
    if (process.env.TEMPORAL_ADDRESS) this.skip();
    assert.ok(existsSync(path.resolve(__dirname, '../../dist/worker/main.js')), 'npm run build first (npm test does)');
    dir = await mkdtemp(path.join(os.tmpdir(), 'bench-test-'));
  });
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('runs every scenario on its own server and reports throughput, latency, CPU, memory, and throughput and RSS ratios', async () => {
    const out = path.join(dir, 'report.json');
    const options = parseBenchArgs(['--jobs', '10', '--repeat', '1', '--concurrency', '5', '--out', out]);
    const report = await runBench(options, () => {});
    const written = JSON.parse(await readFile(out, 'utf8')) as BenchReport;
    assert.deepEqual(written.summaries.map((s) => s.scenario), [...defaultScenarios]);
    for (const s of report.summaries) {
      assert.equal(s.notCompleted, 0, `${s.scenario}: every job completed`);
      assert.ok(s.throughput.median > 0, `${s.scenario}: throughput`);
      assert.ok(s.enqueueToComplete.p50 >= s.enqueueToStart.p50, `${s.scenario}: done after start`);
      assert.ok(s.cpuMsPerJob.worker !== null && s.cpuMsPerJob.server !== null, `${s.scenario}: worker and server CPU read from /proc`);
      assert.ok(s.workerPeakRssMb !== null && s.workerPeakRssMb > 0, `${s.scenario}: worker RSS`);
      const threads = s.workerThreadCpuMsPerJob;
      assert.ok(threads && threads.main > 0 && threads.workflow > 0, `${s.scenario}: the worker's CPU split into its main and workflow threads: ${JSON.stringify(threads)}`);
    }
    assert.equal(report.summaries.find((s) => s.scenario === 'baseline')?.server, 'stock');
    assert.equal(report.summaries.find((s) => s.scenario === 'ours')?.server, 'npm-start');
    assert.equal(report.summaries.find((s) => s.scenario === 'activity')?.server, 'npm-start');
    assert.equal(report.summaries.find((s) => s.scenario === 'ours-activity')?.server, 'npm-start');
    assert.deepEqual(report.ratios.map((r) => r.name), ['ours/baseline', 'ours/ceiling', 'ours-failures/baseline', 'ours-failures/ceiling', 'ours-activity/activity']);
    assert.deepEqual(written.rssRatios.map((r) => r.name), ['ours/ceiling', 'ours-failures/ceiling', 'ours-activity/activity']);
    assert.ok(report.rssRatios.every((r) => r.median > 0), 'worker RSS ratios');
    assert.deepEqual(written.threadCpuRatios.map((r) => r.name).filter((n) => n.endsWith('ours-activity/activity')), ['main ours-activity/activity', 'workflow ours-activity/activity', 'native ours-activity/activity']);
    assert.match(formatReport(report), /ours\/baseline\s+\d/);
    assert.match(formatReport(report), /ours-activity\/activity\s+\d/);
    assert.match(formatReport(report), /RSS ours\/ceiling\s+\d/);
  });

  it('runs ours-traced with tracing on, the worker and client exporting OTLP to the sink, beside ours with it off', async () => {
    const options = parseBenchArgs(['--jobs', '10', '--repeat', '1', '--concurrency', '5', '--scenarios', 'ours,ours-traced', '--out', path.join(dir, 'traced.json')]);
    const report = await runBench(options, () => {});
    assert.deepEqual(report.summaries.map((s) => s.notCompleted), [0, 0]);
    const [off, on] = report.runs;
    assert.equal(off!.traceExport, null, 'ours exports nothing');
    // A noop job's client, workflow and activity spans are a few hundred bytes each in OTLP protobuf.
    assert.ok(on!.traceExport && on!.traceExport.bytesPerJob > 500, `ours-traced exported ${on!.traceExport?.bytesPerJob} bytes per job`);
    assert.deepEqual(report.ratios.map((r) => r.name), ['ours-traced/ours']);
    assert.deepEqual(report.cpuRatios.map((r) => r.name), ['CPU ours-traced/ours']);
    assert.match(formatReport(report), /ours-traced exported\s+\d+ OTLP bytes\/job/);
  });

  it('runs ours-before from the --before checkout\'s build beside ours, and reports ours/ours-before', async () => {
    // This checkout stands in for an earlier one: what is asserted is that the other build's worker runs and is paired.
    const root = path.resolve(__dirname, '../..');
    const options = parseBenchArgs(['--jobs', '5', '--repeat', '1', '--concurrency', '5', '--scenarios', 'ours', '--before', root, '--out', path.join(dir, 'before.json')]);
    assert.deepEqual(options.scenarios, ['ours', 'ours-before']);
    const report = await runBench(options, () => {});
    assert.deepEqual(report.summaries.map((s) => [s.scenario, s.notCompleted]), [['ours', 0], ['ours-before', 0]]);
    assert.deepEqual(report.ratios.map((r) => r.name), ['ours/ours-before']);
    assert.deepEqual(report.cpuRatios.map((r) => r.name), ['CPU ours/ours-before']);
  });

  it('runs ours-activity-before from the --before checkout\'s bench/activity worker beside ours-activity, and reports the pair', async () => {
    // As above, this checkout stands in for an earlier one.
    const root = path.resolve(__dirname, '../..');
    const options = parseBenchArgs(['--jobs', '5', '--repeat', '1', '--concurrency', '5', '--scenarios', 'activity,ours-activity,ours-activity-before', '--before', root, '--out', path.join(dir, 'activity-before.json')]);
    assert.deepEqual(options.scenarios, ['activity', 'ours-activity', 'ours-activity-before'], 'no ours-before added when a before scenario is named');
    const report = await runBench(options, () => {});
    assert.deepEqual(report.summaries.map((s) => [s.scenario, s.notCompleted]), [['activity', 0], ['ours-activity', 0], ['ours-activity-before', 0]]);
    assert.deepEqual(report.ratios.map((r) => r.name), ['ours-activity/activity', 'ours-activity/ours-activity-before', 'ours-activity-before/activity']);
    assert.deepEqual(report.rssRatios.map((r) => r.name), ['ours-activity/activity', 'ours-activity/ours-activity-before']);
    assert.deepEqual(report.cpuRatios.map((r) => r.name), ['CPU ours-activity/ours-activity-before']);
  });

  it('paces the load with --rate, and runs ours-eager (the load offered from the worker process)', async () => {
    const options = parseBenchArgs(['--jobs', '5', '--repeat', '1', '--rate', '10', '--scenarios', 'ours,ours-eager', '--out', path.join(dir, 'rate.json')]);
    const report = await runBench(options, () => {});
    assert.deepEqual(report.runs.map((r) => [r.scenario, r.rate]), [['ours', 10], ['ours-eager', 10]]);
    assert.deepEqual(report.summaries.map((s) => s.notCompleted), [0, 0]);
    assert.deepEqual(report.ratios.map((r) => r.name), ['ours-eager/ours']);
    assert.deepEqual(report.rssRatios, []);
  });

  it('refuses an unknown scenario or a bad number', () => {
    assert.throws(() => parseBenchArgs(['--scenarios', 'fastest']), /unknown scenario fastest/);
    assert.throws(() => parseBenchArgs(['--jobs=0']), /--jobs must be a positive number/);
    assert.throws(() => parseBenchArgs(['--scenarios', 'ours-before']), /ours-before runs another build's worker: give --before DIR/);
    assert.throws(() => parseBenchArgs(['--scenarios', 'ours-activity,ours-activity-before']), /ours-activity-before runs another build's worker: give --before DIR/);
    assert.throws(() => parseBenchArgs(['--before', os.tmpdir()]), /--before .*dist\/worker\/main\.js is missing/);
  });
});
