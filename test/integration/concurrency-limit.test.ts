import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { formatStats } from '../../src/jobctl/cli-stats';
import { JobClient } from '../../src/client/job-client';
import { jobStats } from '../../src/jobctl/job-stats';
import { limitsCatalog } from '../fixtures/limits/catalog';
import type { AttemptLine } from '../fixtures/limits/jobs';
import { peakOverlap, readAttemptLog } from '../fixtures/limits/overlap';
import { repoRoot, uniqueId } from '../helpers/env';
import { freePort, startProcess, type Started } from '../helpers/processes';
import { killIfRunning, startTestTemporal, until, type TestTemporal } from '../helpers/worker-process';

// A team's job type with `limits: { concurrencyPerKey: 2 }` per tenant (test/fixtures/limits), run
// by three real worker processes on one dev server: each attempt logs its start and end, so the
// test sees how many ran at once per tenant.
const fixture = path.join(repoRoot, 'test/fixtures/limits');

describe('concurrency per key: at most N jobs of a key run at once across workers', function () {
  this.timeout(300_000);
  let temporal: TestTemporal;
  let dataDir: string;
  let logFile: string;
  let client: JobClient<typeof limitsCatalog.payloads>;
  const taskQueue = uniqueId('limits');
  const workers: Started[] = [];

  async function startWorker(): Promise<Started> {
    const worker = startProcess(
      process.execPath,
      ['--require', 'tsx/cjs', path.join(repoRoot, 'src/worker/main.ts'), '--worker', path.join(fixture, 'worker.ts')],
      {
        ...process.env,
        TEMPORAL_ADDRESS: temporal.address,
        TEMPORAL_TASK_QUEUE: taskQueue,
        DATA_DIR: dataDir,
        DATABASE_URL: undefined,
        LIMITS_LOG: logFile,
        LOG_LEVEL: 'info',
        METRICS_HOST: '127.0.0.1',
        METRICS_PORT: String(await freePort()),
      },
      repoRoot,
    );
    workers.push(worker);
    await worker.waitFor('worker:started', 180_000);
    return worker;
  }

  const attemptLog = () => readAttemptLog(logFile);

  before(async () => {
    temporal = await startTestTemporal();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'limits-data-'));
    client = await JobClient.connect({ catalog: limitsCatalog, temporalAddress: temporal.address, taskQueue });
  });

  beforeEach(async () => {
    logFile = path.join(dataDir, `${uniqueId('attempts')}.log`);
    await writeFile(logFile, '');
  });

  afterEach(() => Promise.all(workers.splice(0).map(killIfRunning)));

  after(async () => {
    await client?.close();
    await temporal?.stop();
  });

  it('3 workers, 30 jobs of one tenant with N=2: never more than 2 at once, all complete; another tenant is not held up by it', async () => {
    await Promise.all([startWorker(), startWorker(), startWorker()]);
    const busy = await Promise.all(Array.from({ length: 30 }, (_, i) => client.enqueue('tenant-work', { tenant: 'acme', ms: 400 }, { id: uniqueId(`acme-${i}`) })));
    const other = await Promise.all(Array.from({ length: 4 }, (_, i) => client.enqueue('tenant-work', { tenant: 'globex', ms: 400 }, { id: uniqueId(`globex-${i}`) })));
    const started = Date.now();
    await Promise.all(other.map((j) => client.result(j.id)));
    const globexDone = Date.now() - started;
    await Promise.all(busy.map((j) => client.result(j.id)));
    const acmeDone = Date.now() - started;

    const lines = await attemptLog();
    assert.equal(peakOverlap(lines, 'acme'), 2, 'acme ran at most 2 at once, and used both slots');
    assert.equal(peakOverlap(lines, 'globex'), 2);
    for (const job of [...busy, ...other]) {
      assert.equal(lines.filter((l) => l.jobId === job.id && l.event === 'end').length, 1, `${job.id} ran its step once`);
      assert.equal((await client.get(job.id)).status, 'completed');
    }
    // 30 jobs of 400 ms two at a time take at least 6 s; the other tenant's 4 finish long before.
    assert.ok(acmeDone >= 6_000, `acme took ${acmeDone} ms`);
    assert.ok(globexDone < acmeDone / 2, `globex took ${globexDone} ms, acme ${acmeDone} ms`);
    // Three processes shared the work.
    assert.ok(new Set(lines.map((l) => l.pid)).size >= 2, 'more than one worker ran attempts');
  });

  it('a waiting job says so in its record; SIGKILL of a worker holding a slot: the slot is in use again within the heartbeat bound, nothing runs twice', async () => {
    const [first] = await Promise.all([startWorker(), startWorker(), startWorker()]);
    const jobs = await Promise.all(Array.from({ length: 6 }, (_, i) => client.enqueue('tenant-work', { tenant: 'initech', ms: 4_000 }, { id: uniqueId(`initech-${i}`) })));
    // Two hold the slots; the others wait and say why.
    let waitingRecord: Awaited<ReturnType<typeof client.get>> | undefined;
    await until('a job waits for a slot', async () => {
      for (const job of jobs) {
        const record = await client.get(job.id);
        if (record.limitWait) waitingRecord = record;
      }
      return waitingRecord !== undefined;
    }, 30_000);
    assert.equal(waitingRecord!.status, 'running');
    assert.equal(waitingRecord!.attempts, 0, 'a job waiting for its slot has begun no attempt');
    assert.deepEqual({ key: waitingRecord!.limitWait!.key, limit: waitingRecord!.limitWait!.limit }, { key: 'initech', limit: 2 });
    // jobctl stats tells the jobs waiting for a slot from backlog (visibility is a second or so behind).
    await until('stats show the waiting jobs', async () => {
      const limited = (await jobStats(client)).limited.find((l) => l.type === 'tenant-work');
      return limited !== undefined && limited.limit === 2 && limited.running === 2 && limited.waiting >= 1 && limited.keys === 1;
    }, 30_000);
    const stats = await jobStats(client);
    assert.match(formatStats(stats), /limited tenant-work \(at most 2 at once per key\): 2 running, \d waiting for a slot over 1 key\(s\)/);
    // The type's row counts the jobs waiting for a slot apart from those running.
    const row = stats.types.find((t) => t.type === 'tenant-work')!;
    const limitedNow = stats.limited.find((l) => l.type === 'tenant-work')!;
    assert.equal(row.waiting, limitedNow.waiting, 'waiting in the row is the limiter\'s waiting');
    assert.ok(row.running <= jobs.length - row.waiting, `running ${row.running} excludes the ${row.waiting} waiting`);

    // Kill the worker that runs an attempt (any of the three that does), mid-step: as soon as the log
    // shows an attempt started and not ended, with most of its 4 s step still ahead.
    const victimLine = await (async () => {
      let found: AttemptLine | undefined;
      const running = (lines: AttemptLine[]) => lines.find((l) => l.event === 'start' && !lines.some((e) => e.event === 'end' && e.jobId === l.jobId && e.attempt === l.attempt));
      await until('an attempt is running', async () => (found = running(await attemptLog())) !== undefined, 60_000);
      return found!;
    })();
    const victim = workers.find((w) => w.child.pid === victimLine.pid) ?? first;
    const killedAt = Date.now();
    victim.child.kill('SIGKILL');
    await victim.exited;

    await Promise.all(jobs.map((j) => client.result(j.id)));
    const lines = await attemptLog();
    const killedAttempts = lines.filter((l) => l.pid === victimLine.pid && l.event === 'start' && !lines.some((e) => e.event === 'end' && e.jobId === l.jobId && e.attempt === l.attempt));
    assert.ok(killedAttempts.length >= 1, 'the killed worker was running an attempt');
    assert.equal(peakOverlap(lines, 'initech', new Map([[victimLine.pid, killedAt]])), 2, 'never more than 2 at once, the killed attempts counted until the kill');
    for (const killed of killedAttempts) {
      const retry = lines.find((l) => l.jobId === killed.jobId && l.event === 'start' && l.attempt === killed.attempt + 1);
      assert.ok(retry, `${killed.jobId} was retried`);
      // The slot belongs to the job, which goes on: its attempt is retried once the heartbeat timeout
      // (2 s) and the retry delay (1 s) pass; the other 7 s are margin for the server and workers.
      assert.ok(retry.at - killedAt < 10_000, `the slot was in use again ${retry.at - killedAt} ms after the kill`);
    }
    for (const job of jobs) {
      assert.equal(lines.filter((l) => l.jobId === job.id && l.event === 'end').length, 1, `${job.id} completed its step once`);
    }
  });
});
