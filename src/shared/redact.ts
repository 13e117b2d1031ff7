/** Variables holding URLs whose password is secret. */
const urlVariables = ['SMTP_URL', 'DATABASE_URL', 'SYNC_SOURCE_URL'] as const;

const shortest = 4;
const urlCredentials = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@"'<>]*:)[^\s@/"'<>]+@/gi;

/**
 * The secret values the environment holds: API keys, each encryption key's material, and the
 * passwords in URLs (as written and percent-decoded). Key files are not read: their material never
 * reaches a message that this package writes.
 */
export function secretsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const secrets = new Set<string>();
  if (env.TEMPORAL_API_KEY) secrets.add(env.TEMPORAL_API_KEY);
  if (env.ENCRYPTION_KEYS) {
    secrets.add(env.ENCRYPTION_KEYS);
    // Each entry's material (after its key ID, which is not secret), however malformed the entry.
    for (const entry of env.ENCRYPTION_KEYS.split(/[,\n]/)) secrets.add(entry.slice(entry.indexOf(':') + 1).trim());
  }
  for (const name of urlVariables) {
    const match = /^[a-z][a-z0-9+.-]*:\/\/[^/@]*?:([^/@]*)@/i.exec(env[name] ?? '');
    if (!match?.[1]) continue;
    secrets.add(match[1]);
    try {
      secrets.add(decodeURIComponent(match[1]));
    } catch {
      // A malformed escape: the raw form above is what can appear.
    }
  }
  // Longest first, so a value is replaced whole before any piece of it.
  return [...secrets].filter((s) => s.length >= shortest).sort((a, b) => b.length - a.length);
}

/** Replaces URL passwords and each known secret in `text` with `***`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text.replace(urlCredentials, '$1***@');
  for (const secret of secrets) out = out.split(secret).join('***');
  return out;
}

/** {@link redact} applied to every string in a log line's fields, a few levels deep. */
export function redactDeep<T>(value: T, secrets: readonly string[], depth = 4): T {
  if (typeof value === 'string') return redact(value, secrets) as T;
  if (depth === 0 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    // A plain object with the message and stack as fields: a log line shows them (JSON of an Error
    // keeps only its enumerable fields, such as `type`).
    const fields = redactDeep({ ...value } as Record<string, unknown>, secrets, depth - 1);
    const plain: Record<string, unknown> = { name: value.name, message: redact(value.message, secrets), ...fields };
    if (value.stack) plain.stack = redact(value.stack, secrets);
    if (value.cause !== undefined) plain.cause = redactDeep(value.cause, secrets, depth - 1);
    return plain as T;
  }
  if (Array.isArray(value)) return value.map((v: unknown) => redactDeep(v, secrets, depth - 1)) as T;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, secrets, depth - 1)])) as T;
}

/** The message of anything thrown, with the environment's secrets redacted: for a process's last words. */
export function describeRedacted(err: unknown, env: NodeJS.ProcessEnv = process.env): string {
  return redact(err instanceof Error ? err.message : String(err), secretsFromEnv(env));
}
