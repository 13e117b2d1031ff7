import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { formatSeconds, progressLine, startProgress } from '../../src/jobctl/progress';

describe('progress of long jobctl operations', () => {
  it('words done, failed, rate and time left as one plain line', () => {
    assert.equal(progressLine('redrive', { done: 120, failed: 2, total: 1000, elapsedMs: 10_000 }), 'jobctl: redrive: 120/1000 done, 2 failed, 12.0/s, about 1m13s left');
    assert.equal(progressLine('redrive', { done: 5, failed: 0, elapsedMs: 1000 }), 'jobctl: redrive: 5 done, 0 failed, 5.0/s', 'no total: no time left');
    assert.equal(formatSeconds(3725), '1h02m');
    assert.equal(formatSeconds(42.4), '42s');
  });

  it('writes a plain line every interval when the stream is not a terminal', async () => {
    const stream = new PassThrough() as PassThrough & { isTTY?: boolean };
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const progress = startProgress({ label: 'enqueue noop', total: 4, stream: stream as unknown as NodeJS.WriteStream, intervalMs: 20 });
    progress.tick();
    progress.tick(true);
    await new Promise((resolve) => setTimeout(resolve, 70));
    progress.stop();
    assert.match(text, /^jobctl: enqueue noop: 2\/4 done, 1 failed, [\d.]+\/s, about \S+ left\n/);
    assert.doesNotMatch(text, /\u001b\[/, 'no terminal escapes');
  });
});
