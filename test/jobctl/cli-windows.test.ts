import assert from 'node:assert/strict';
import { UsageError } from '../../src/jobctl/cli-support';
import { windowFlags } from '../../src/jobctl/cli-windows';

describe('jobctl enqueue window flags', () => {
  it('turns --debounce-key/--debounce/--max-delay and --dedupe-key/--dedupe-ttl into the enqueue options', () => {
    assert.deepEqual(windowFlags({ debounceKey: 'k', debounce: '30s', maxDelay: '5m' }), { debounce: { key: 'k', delay: '30s', maxDelay: '5m' }, dedupe: undefined });
    assert.deepEqual(windowFlags({ dedupeKey: 'k', dedupeTtl: '24h' }), { debounce: undefined, dedupe: { key: 'k', ttl: '24h' } });
    assert.deepEqual(windowFlags({}), { debounce: undefined, dedupe: undefined });
  });

  it('refuses a flag without its partner, and the two windows together, naming the flags', () => {
    const refuses = (flags: Parameters<typeof windowFlags>[0], message: RegExp) => assert.throws(() => windowFlags(flags), (err: unknown) => err instanceof UsageError && message.test(err.message));
    refuses({ debounceKey: 'k' }, /--debounce-key needs --debounce <duration>/);
    refuses({ debounce: '30s' }, /--debounce needs --debounce-key/);
    refuses({ maxDelay: '5m' }, /--max-delay needs --debounce-key/);
    refuses({ dedupeKey: 'k' }, /--dedupe-key needs --dedupe-ttl/);
    refuses({ dedupeTtl: '1h' }, /--dedupe-ttl needs --dedupe-key/);
    refuses({ debounceKey: 'k', debounce: '1s', dedupeKey: 'k', dedupeTtl: '1h' }, /exclude each other/);
  });
});
