import { createHash } from 'node:crypto';

/** JSON with object keys sorted, so equal payloads serialise identically whatever their key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** `sha256:<hex>` of a validated payload's canonical JSON; kept in the job's memo to detect ID conflicts. */
export function payloadHash(payload: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(payload)).digest('hex')}`;
}
