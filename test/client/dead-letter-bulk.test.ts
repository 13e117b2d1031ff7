import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { bulkDiscard, type BulkTarget } from '../../src/client/dead-letter-bulk';
import type { LocatedEntry } from '../../src/client/dead-letter-reads';
import { ErrorType, JobsError } from '../../src/shared/errors';
import type { DeadLetterEntry } from '../../src/workflow-kit/dead-letter-entries';

const located = (id: string): LocatedEntry => ({ entry: { id, type: 'noop' } as DeadLetterEntry, workflowId: 'dlq' });

// The target is a stand-in for the DLQ's updates: only the pooling and stopping of a bulk
// operation is under test (test/integration/dlq-without-workers.test.ts runs it against a server).
describe('bulk discard', () => {
  it('stops when no worker answers, after reporting every call already in flight, and leaves no rejection unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const noWorker = new JobsError(ErrorType.DlqNoWorker, 'no worker answers');
      const target: BulkTarget = {
        patchedPayload: () => undefined,
        shown: (_entry, payload) => payload,
        restart: () => Promise.reject(new Error('not called')),
        // e-2 finds no worker at once; e-0, e-1 and e-3 were sent and end later, e-3 refused too.
        discard: async ({ entry }) => {
          if (entry.id === 'e-2') throw noWorker;
          await sleep(entry.id === 'e-0' ? 50 : 100);
          if (entry.id === 'e-3') throw noWorker;
        },
      };
      const seen: string[] = [];
      await assert.rejects(
        (async () => {
          for await (const outcome of bulkDiscard(target, ['e-0', 'e-1', 'e-2', 'e-3', 'e-4'].map(located), { concurrency: 4 })) seen.push(outcome.id);
        })(),
        (err) => err === noWorker,
      );
      assert.deepEqual(seen, ['e-0', 'e-1'], 'the discards done before the stop are reported; none after it is started');
      await sleep(150);
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('reports a failure of one entry and goes on with the rest', async () => {
    const target: BulkTarget = {
      patchedPayload: () => undefined,
      shown: (_entry, payload) => payload,
      restart: () => Promise.reject(new Error('not called')),
      discard: async ({ entry }) => {
        if (entry.id === 'e-1') throw new Error('not dead-lettered');
      },
    };
    const outcomes = [];
    for await (const outcome of bulkDiscard(target, ['e-0', 'e-1', 'e-2'].map(located), { concurrency: 2 })) outcomes.push(outcome);
    assert.deepEqual(outcomes.map((o) => [o.id, o.error ?? 'done']), [['e-0', 'done'], ['e-1', 'not dead-lettered'], ['e-2', 'done']]);
  });
  it('reports each discard as soon as it ends, not when the pool fills or its turn comes', async () => {
    const events: string[] = [];
    const target: BulkTarget = {
      patchedPayload: () => undefined,
      shown: (_entry, payload) => payload,
      restart: () => Promise.reject(new Error('not called')),
      discard: async ({ entry }) => {
        events.push(`start ${entry.id}`);
        await sleep(entry.id === 'e-0' ? 1500 : 20);
      },
    };
    // Two a second: each quick discard ends long before the next starts; e-0 ends after e-1 and e-2.
    for await (const outcome of bulkDiscard(target, ['e-0', 'e-1', 'e-2'].map(located), { concurrency: 8, ratePerSecond: 2 })) events.push(`done ${outcome.id}`);
    assert.deepEqual(events, ['start e-0', 'start e-1', 'done e-1', 'start e-2', 'done e-2', 'done e-0']);
  });

  it('stops starting discards once interrupted, and reports every one in flight', async () => {
    const controller = new AbortController();
    const started: string[] = [];
    const target: BulkTarget = {
      patchedPayload: () => undefined,
      shown: (_entry, payload) => payload,
      restart: () => Promise.reject(new Error('not called')),
      discard: async ({ entry }) => {
        started.push(entry.id);
        if (entry.id === 'e-2') controller.abort(); // the operator's Ctrl-C while e-0..e-2 are in flight
        await sleep(100);
      },
    };
    const reported: string[] = [];
    for await (const outcome of bulkDiscard(target, ['e-0', 'e-1', 'e-2', 'e-3', 'e-4'].map(located), { concurrency: 4, signal: controller.signal })) reported.push(outcome.id);
    assert.deepEqual(started, ['e-0', 'e-1', 'e-2']);
    assert.deepEqual(reported.sort(), ['e-0', 'e-1', 'e-2']);
  });
});
