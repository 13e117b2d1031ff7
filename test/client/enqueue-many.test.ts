import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { InvalidItemsError } from '../../src/client/enqueue-many';
import { JobClient } from '../../src/client/job-client';
import { lineJobId } from '../../src/jobctl/jobs-file';
import { catalog } from '../../src/jobs/catalog';
import { repoRoot, startDevServerEnv, uniqueId } from '../helpers/env';
import { runCommand } from '../helpers/processes';

const email = (userId: string) => ({ to: 'ada@example.com', subject: 'Hello', body: 'Hi', userId });
const jobctl = path.join(repoRoot, 'bin/jobctl.js');

// No worker: the jobs start and wait on a task queue nobody polls, which is all a bulk enqueue needs.
describe('bulk enqueue: JobClient.enqueueMany and jobctl enqueue --file (real dev server)', function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  let jobs: JobClient;
  let taskQueue: string;
  let dir: string;

  before(async () => {
    env = await startDevServerEnv();
    taskQueue = uniqueId('bulk');
    jobs = new JobClient(env.client, { catalog, taskQueue });
    dir = await mkdtemp(path.join(os.tmpdir(), 'durable-jobs-bulk-'));
  });
  after(async () => {
    await env?.teardown();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const exists = (id: string) => env.client.workflow.getHandle(id).describe().then(() => true, () => false);
  const ctl = (args: string[]) => runCommand(process.execPath, [jobctl, ...args], { ...process.env, TEMPORAL_ADDRESS: env.address, TEMPORAL_TASK_QUEUE: taskQueue }, repoRoot);
  const file = async (name: string, lines: string[]) => {
    const p = path.join(dir, name);
    await writeFile(p, `${lines.join('\n')}\n`);
    return p;
  };

  it('names every invalid item with its fields and enqueues nothing', async () => {
    const ok = uniqueId('ok');
    const err = await jobs
      .enqueueMany('send-email', [{ payload: email('u1'), id: ok }, { payload: { ...email('u2'), to: 'not-an-address' } }, { payload: { subject: 'x' }, label: 'row 3' }])
      .catch((e: unknown) => e);
    assert.ok(err instanceof InvalidItemsError, String(err));
    assert.deepEqual(err.items.map((i) => i.label), ['items[1]', 'row 3']);
    assert.match(err.message, /items\[1\]: payload\.to/);
    assert.match(err.message, /row 3: payload\.userId/);
    assert.equal(await exists(ok), false, 'the valid item did not start either');
  });

  it('says per item started, existed or conflict, and with skipInvalid starts the valid ones', async () => {
    const [a, b, c] = [uniqueId('a'), uniqueId('b'), uniqueId('c')];
    await jobs.enqueue('send-email', email('u1'), { id: b });
    await jobs.enqueue('send-email', email('other'), { id: c });
    const seen: string[] = [];
    const result = await jobs.enqueueMany(
      'send-email',
      [{ payload: email('u1'), id: a }, { payload: email('u1'), id: b }, { payload: email('u1'), id: c }, { payload: { to: 'x' } }],
      { skipInvalid: true, concurrency: 2, onOutcome: (o) => seen.push(o.outcome) },
    );
    assert.deepEqual(result.outcomes.map((o) => o.outcome), ['started', 'existed', 'conflict', 'invalid']);
    assert.deepEqual(result.counts, { started: 1, existed: 1, conflict: 1, invalid: 1, failed: 0 });
    assert.deepEqual(seen.sort(), ['conflict', 'existed', 'started']);
    assert.equal(await exists(a), true);
  });

  it('jobctl enqueue --file names every bad line by number and field, exits 2 and enqueues nothing', async () => {
    const good = uniqueId('good');
    const p = await file('bad.jsonl', [
      JSON.stringify({ payload: email('u1'), id: good }),
      JSON.stringify({ payload: { ...email('u2'), to: 'nope' } }),
      '',
      '{not json',
      JSON.stringify({ payload: email('u3'), extra: 1 }),
    ]);
    const ran = await ctl(['enqueue', 'send-email', '--file', p]);
    assert.equal(ran.code, 2, ran.stderr);
    assert.match(ran.stderr, /line 2: payload\.to/);
    assert.match(ran.stderr, /line 4: not valid JSON/);
    assert.match(ran.stderr, /line 5: extra: unknown field/);
    assert.doesNotMatch(ran.stderr, /line 1:/);
    assert.equal(await exists(good), false, 'nothing was enqueued');
  });

  it('jobctl enqueue --file --skip-invalid starts the valid lines and reports the invalid ones', async () => {
    const good = uniqueId('good');
    const p = await file('skip.jsonl', [JSON.stringify({ payload: email('u1'), id: good }), JSON.stringify({ payload: { to: 'x' } }), JSON.stringify({ payload: email('u2'), id: `${good}-2` }), '{not json']);
    const ran = await ctl(['enqueue', 'send-email', '--file', p, '--skip-invalid', '--json']);
    assert.equal(ran.code, 0, ran.stderr);
    const outcomes = JSON.parse(ran.stdout) as { line: number; id?: string; outcome: string; error?: string }[];
    // In line order, though the invalid line is known before any start.
    assert.deepEqual(outcomes.map((o) => [o.line, o.outcome]), [[1, 'started'], [2, 'invalid'], [3, 'started'], [4, 'invalid']]);
    assert.equal(await exists(good), true);
    assert.match(ran.stderr, /2 started, 0 existed, 0 conflict, 2 invalid, 0 failed/);
    assert.match(outcomes[3]!.error ?? '', /^not valid JSON/);
  });

  it('run again after an interruption, starts only the lines that are missing (lines without an id get one per line)', async () => {
    const lines = Array.from({ length: 6 }, (_, i) => JSON.stringify({ payload: { failAttempts: 0 }, ...(i % 2 === 0 ? { id: `${taskQueue}-line-${i + 1}` } : {}) }));
    // The first run got through the first three lines before it was stopped: the same lines, a shorter file.
    const first = await ctl(['enqueue', 'noop', '--file', await file('part.jsonl', lines.slice(0, 3)), '--json']);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual((JSON.parse(first.stdout) as { outcome: string }[]).map((o) => o.outcome), ['started', 'started', 'started']);
    const again = await ctl(['enqueue', 'noop', '--file', await file('all.jsonl', lines), '--json']);
    assert.equal(again.code, 0, again.stderr);
    const outcomes = JSON.parse(again.stdout) as { line: number; id: string; outcome: string }[];
    assert.deepEqual(outcomes.map((o) => o.outcome), ['existed', 'existed', 'existed', 'started', 'started', 'started']);
    assert.equal(outcomes[1]!.id, lineJobId('noop', 2, { failAttempts: 0 }), 'a line without an id gets the ID of its number and payload');
    assert.match(again.stderr, /jobctl: 3 started, 3 existed/);
  });
});
