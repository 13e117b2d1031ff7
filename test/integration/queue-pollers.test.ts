import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { DeadLetterUnappliedError, DeadLetterWorkerCheck } from '../../src/client/dead-letter-worker-check';
import { lastPollAt, livePollWindowMs, queuePollers } from '../../src/client/queue-pollers';
import { customSearchAttributes } from '../../src/shared/search-attributes';
import { startBareTemporal, type BareTemporal } from '../helpers/bare-temporal';
import { uniqueId } from '../helpers/env';
import { startOwnQueuesWorker } from '../helpers/own-queues-worker';
import { type Started } from '../helpers/processes';
import { killIfRunning, until } from '../helpers/worker-process';

// Whether a worker serves a queue decides whether a DLQ operation or a breaker order is sent. The
// server lists when each poll began, per partition: a live worker idling in a minute-long poll, on
// any of a default cluster's 4 partitions, looked gone to a check of the root partition's last 20 s
// (a redrive in the 300-failure storm on the native cluster was abandoned as jobs:dlq-busy).
describe('who polls a task queue: every partition, and a live worker\'s long poll (real dev server with 4 partitions, worker process)', function () {
  this.timeout(300_000);
  let bare: BareTemporal;
  let connection: Connection;
  let client: Client;
  let worker: Started | undefined;
  const taskQueue = uniqueId('pollers');

  before(async () => {
    const attributes = Object.entries(customSearchAttributes).flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]);
    bare = await startBareTemporal(undefined, attributes);
    connection = await Connection.connect({ address: bare.address });
    client = new Client({ connection });
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pollers-'));
    worker = await startOwnQueuesWorker(bare.address, taskQueue, dataDir);
  });

  after(async () => {
    if (worker) await killIfRunning(worker);
    await connection?.close();
    await bare?.stop();
  });

  it('counts an idle worker as polling while its last poll is under a minute old, and lets an update that takes longer than 20 s finish', async () => {
    const partitions = await client.workflowService.listTaskQueuePartitions({ namespace: 'default', taskQueue: { name: taskQueue } });
    assert.equal(partitions.workflowTaskQueuePartitions?.length, 4, 'the CLI\'s default: 4 partitions');
    // The worker logs its start before each poller has begun its first poll.
    await until('the worker polls both sides of the queue', async () => (await queuePollers(client, taskQueue, 'workflow')).size >= 1 && (await queuePollers(client, taskQueue, 'activity')).size >= 1, 60_000);

    // Nothing to do: every poll waits out its minute on the server. Once the newest began over 25 s
    // ago, a 20 s look at the pollers would call the worker gone.
    await until('the worker idles in a long poll begun over 25 s ago', async () => Date.now() - (await lastPollAt(client, taskQueue, 'workflow')) > 25_000, 120_000);
    const idleFor = Date.now() - (await lastPollAt(client, taskQueue, 'workflow'));
    assert.ok(idleFor < livePollWindowMs, `the newest poll began ${idleFor} ms ago: within the window`);

    // An operation that takes 30 s (a DLQ update behind a storm's hand-offs) while the worker lives:
    // the check looks at the pollers after 20 s and must wait on, not abandon it.
    let aborted = false;
    const outcome = await new DeadLetterWorkerCheck(client, taskQueue).whileWorkersPoll('a-busy-shard', async (signal) => {
      signal.addEventListener('abort', () => (aborted = true));
      await sleep(30_000);
      return 'applied';
    });
    assert.equal(outcome, 'applied');
    assert.equal(aborted, false, 'never abandoned while the worker polls');
  });

  it('calls the worker gone once its last poll is older than a live one\'s can be, and abandons the operation with jobs:dlq-busy', async () => {
    await killIfRunning(worker!);
    worker = undefined;
    const killedAt = Date.now();
    let aborted = false;
    const failed = await new DeadLetterWorkerCheck(client, taskQueue)
      .whileWorkersPoll('a-held-shard', (signal) => new Promise<never>((_, reject) => signal.addEventListener('abort', () => ((aborted = true), reject(new Error('aborted'))))))
      .then(() => assert.fail('an operation no worker applies did not end'), (err: unknown) => err);
    assert.ok(failed instanceof DeadLetterUnappliedError, String(failed));
    assert.equal(aborted, true);
    const took = Date.now() - killedAt;
    // The window, then at most one more look at the pollers (every 20 s).
    assert.ok(took <= livePollWindowMs + 20_000 + 5_000, `bounded: ${took} ms`);
    console.log(`      worker SIGKILLed: the operation was abandoned after ${(took / 1000).toFixed(0)} s (window ${livePollWindowMs / 1000} s)`);
  });
});
