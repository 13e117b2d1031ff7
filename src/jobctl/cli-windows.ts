import type { Duration } from '@temporalio/common';
import type { DebounceOptions, DedupeOptions } from '../catalog/window-options';
import { UsageError } from './cli-support';

/** The flags of `jobctl enqueue`. */
export interface EnqueueFlags {
  id?: string;
  delay?: string;
  priority?: string;
  debounceKey?: string;
  debounce?: string;
  maxDelay?: string;
  dedupeKey?: string;
  dedupeTtl?: string;
  json?: boolean;
}

/**
 * The debounce and dedupe options that `jobctl enqueue`'s flags give. A flag without its partner
 * is a usage error; the values themselves are checked by the client's own validation, which
 * names the option (`debounce.delay`), as it does for `--delay`.
 */
export function windowFlags(flags: EnqueueFlags): { debounce?: DebounceOptions; dedupe?: DedupeOptions } {
  const { debounceKey, debounce, maxDelay, dedupeKey, dedupeTtl } = flags;
  if (debounceKey === undefined && (debounce !== undefined || maxDelay !== undefined)) {
    throw new UsageError(`${debounce !== undefined ? '--debounce' : '--max-delay'} needs --debounce-key <key>`);
  }
  if (debounceKey !== undefined && debounce === undefined) throw new UsageError('--debounce-key needs --debounce <duration>, e.g. --debounce 30s');
  if ((dedupeKey === undefined) !== (dedupeTtl === undefined)) {
    throw new UsageError(dedupeKey === undefined ? '--dedupe-ttl needs --dedupe-key <key>' : '--dedupe-key needs --dedupe-ttl <duration>, e.g. --dedupe-ttl 24h');
  }
  if (debounceKey !== undefined && dedupeKey !== undefined) throw new UsageError('--debounce-key and --dedupe-key exclude each other: choose one');
  return {
    debounce: debounceKey === undefined ? undefined : { key: debounceKey, delay: debounce as Duration, maxDelay: maxDelay as Duration | undefined },
    dedupe: dedupeKey === undefined ? undefined : { key: dedupeKey, ttl: dedupeTtl as Duration },
  };
}
