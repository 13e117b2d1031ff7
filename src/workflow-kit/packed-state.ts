import { fflate } from './lazy-modules';

// A long-running workflow carries its whole state into the next run as continue-as-new input,
// which Temporal caps at 2 MB. Gzipped JSON (pure JS, so deterministic in workflow code) packs a
// dead-letter queue's entries, which repeat the same keys and values, about tenfold.

/** Gzipped JSON of `value`, as bytes (a top-level workflow argument, sent as binary). */
export function packState(value: unknown): Uint8Array {
  const { gzipSync, strToU8 } = fflate();
  return gzipSync(strToU8(JSON.stringify(value)), { level: 6, mtime: 0 });
}

/** The value {@link packState} packed. */
export function unpackState<T>(packed: Uint8Array): T {
  const { gunzipSync, strFromU8 } = fflate();
  return JSON.parse(strFromU8(gunzipSync(packed))) as T;
}
