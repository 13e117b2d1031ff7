import assert from 'node:assert/strict';
import { HandOffBatcher } from '../../src/activity-kit/hand-off-batcher';

// The batcher alone, its send stubbed: the DLQ tests drive it against a real server.
describe('hand-off batcher', () => {
  function recording(fail?: (batch: number[]) => boolean) {
    const sent: { key: string; items: number[] }[] = [];
    let calls = 0;
    let inFlight = 0;
    let maxInFlight = 0;
    const send = async (key: string, items: number[]) => {
      calls += 1;
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 20));
      inFlight -= 1;
      if (fail?.(items)) throw new Error('signal refused');
      sent.push({ key, items });
    };
    return { sent, send, calls: () => calls, maxInFlight: () => maxInFlight };
  }

  it('sends an idle shard\'s first hand-off at once, and gathers the ones that arrive meanwhile into one batch', async () => {
    const r = recording();
    const batcher = new HandOffBatcher<number>({ send: r.send, lingerMs: 50 });
    const first = batcher.submit('a', 0);
    // Sent within submit itself, before any timer could run: a linger would need one.
    assert.equal(r.calls(), 1, 'no linger for the first');
    await first;
    await Promise.all(Array.from({ length: 100 }, (_, i) => batcher.submit('a', i + 1)));
    // The shard was idle again: the first of the hundred goes at once, the rest wait for it.
    assert.deepEqual(r.sent.map((b) => b.items.length), [1, 1, 99]);
    assert.equal(r.maxInFlight(), 1, 'one batch in flight per shard');
  });

  it('caps a batch by count and by bytes, keeping arrival order, and batches shards apart', async () => {
    const r = recording();
    const batcher = new HandOffBatcher<number>({ send: r.send, lingerMs: 10, maxItems: 30, maxBytes: 1_000_000 });
    await Promise.all([...Array.from({ length: 70 }, (_, i) => batcher.submit('a', i)), ...Array.from({ length: 5 }, (_, i) => batcher.submit('b', i))]);
    const a = r.sent.filter((b) => b.key === 'a');
    assert.ok(a.every((b) => b.items.length <= 30));
    assert.deepEqual(a.flatMap((b) => b.items), Array.from({ length: 70 }, (_, i) => i));
    assert.deepEqual(r.sent.filter((b) => b.key === 'b').flatMap((b) => b.items), [0, 1, 2, 3, 4]);
    const bytes = new HandOffBatcher<string>({ send: async (_k, items) => void r.sent.push({ key: 'bytes', items: items.map((s) => s.length) }), maxBytes: 250 });
    await Promise.all(['x'.repeat(100), 'y'.repeat(100), 'z'.repeat(100), 'w'.repeat(400)].map((s) => bytes.submit('k', s)));
    assert.deepEqual(r.sent.filter((b) => b.key === 'bytes').map((b) => b.items), [[100], [100, 100], [400]], 'a hand-off larger than the cap goes alone');
  });

  it('fails every hand-off of a refused batch, and only those; the next batch goes on', async () => {
    const r = recording((items) => items.includes(3));
    const batcher = new HandOffBatcher<number>({ send: r.send, lingerMs: 5 });
    const first = batcher.submit('a', 0);
    const rest = [1, 2, 3].map((i) => batcher.submit('a', i));
    await first;
    const settled = await Promise.allSettled(rest);
    assert.deepEqual(settled.map((s) => s.status), ['rejected', 'rejected', 'rejected']);
    await batcher.submit('a', 4);
    assert.deepEqual(r.sent.map((b) => b.items), [[0], [4]]);
  });
});
