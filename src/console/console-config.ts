// The console's settings: where it listens, who may sign in, how long a session lasts. Read from
// explicit options, then the environment, then defaults; validated at start, naming the setting.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError, type FieldIssue } from '../shared/errors';
import { hostNameOf, isLoopback } from './hosts';
import { consoleAccountsSchema, type ConsoleAccount } from './users';

/** The console's settings, resolved. */
export interface ConsoleConfig {
  /** Interface to listen on. Any but a loopback one needs accounts. @defaultValue '127.0.0.1' (CONSOLE_HOST) */
  host: string;
  /** Port to listen on; 0 picks a free one. @defaultValue 7280 (CONSOLE_PORT) */
  port: number;
  /** Who may sign in. @defaultValue none (CONSOLE_USERS_FILE): on loopback, everyone who can reach it is the operator `local` */
  accounts: ConsoleAccount[];
  /** Signs session cookies; 32 bytes or more. @defaultValue random per start, which signs everyone out at a restart (CONSOLE_SESSION_SECRET) */
  sessionSecret: Buffer;
  /** How long a sign-in lasts, in ms. @defaultValue 8 hours (CONSOLE_SESSION_HOURS) */
  sessionTtlMs: number;
  /** The Temporal Web UI, for links to a job's history. @defaultValue none (TEMPORAL_UI_URL) */
  temporalUiUrl?: string;
  /** Send cookies only over HTTPS (behind a TLS-terminating proxy). @defaultValue false (CONSOLE_SECURE_COOKIES) */
  secureCookies: boolean;
  /**
   * A header in which a single sign-on proxy names the authenticated person (e.g. `X-Forwarded-User`);
   * that person must be an account of CONSOLE_USERS_FILE, whose role applies. Trusted only on a
   * loopback console (the proxy on this machine) or with {@link proxySecret}. @defaultValue none (CONSOLE_AUTH_HEADER)
   */
  authHeader?: string;
  /** A secret the proxy sends in `X-Console-Proxy-Secret`, without which the auth header is not believed. @defaultValue none (CONSOLE_PROXY_SECRET) */
  proxySecret?: string;
  /**
   * Host names the console answers to besides its listening address and, on loopback or every
   * interface, `localhost`, `127.0.0.1` and `[::1]`: the names people and a proxy reach it by. A
   * request under any other `Host` is refused (421), which stops DNS rebinding; pages that change
   * something must come from one of these names. Comma-separated in the environment.
   * @defaultValue none (CONSOLE_ALLOWED_HOSTS)
   */
  allowedHosts: string[];
}

/** Explicit console settings; each wins over its environment variable. */
export type ConsoleConfigOverrides = Partial<Omit<ConsoleConfig, 'sessionSecret'>> & { sessionSecret?: string | Buffer };


const env = process.env;

/** CONSOLE_ALLOWED_HOSTS: comma-separated host names (a port, if given, is ignored). */
const allowedHostsSchema = z
  .string()
  .transform((text) => text.split(',').map((name) => name.trim()).filter(Boolean))
  .superRefine((names, ctx) => {
    for (const name of names) {
      if (name.includes('*') || name.startsWith('.')) ctx.addIssue({ code: 'custom', message: `takes exact host names, not patterns: got ${JSON.stringify(name)} (list each name, e.g. console.example.com,jobs.example.com)` });
      else if (hostNameOf(name) === undefined) ctx.addIssue({ code: 'custom', message: `must be host names, e.g. console.example.com,10.0.0.5: got ${JSON.stringify(name)}` });
    }
  });

/** Resolves the console's settings; a bad one throws a ConfigError naming it. */
export function loadConsoleConfig(overrides: ConsoleConfigOverrides = {}): ConsoleConfig {
  const issues: FieldIssue[] = [];
  const field = <T>(name: string, schema: z.ZodType<T>, value: unknown): T | undefined => {
    if (value === undefined || value === '') return undefined;
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    issues.push(...parsed.error.issues.map((i) => ({ path: [name, ...i.path].join('.'), message: i.message })));
    return undefined;
  };
  const host = overrides.host ?? field('CONSOLE_HOST', z.string().min(1), env.CONSOLE_HOST) ?? '127.0.0.1';
  const port = overrides.port ?? field('CONSOLE_PORT', z.coerce.number().int().min(0).max(65535), env.CONSOLE_PORT) ?? 7280;
  const hours = field('CONSOLE_SESSION_HOURS', z.coerce.number().positive().max(24 * 30), env.CONSOLE_SESSION_HOURS);
  const temporalUiUrl = overrides.temporalUiUrl ?? field('TEMPORAL_UI_URL', z.url({ protocol: /^https?$/ }), env.TEMPORAL_UI_URL);
  const secureCookies = overrides.secureCookies ?? field('CONSOLE_SECURE_COOKIES', z.enum(['true', 'false']).transform((v) => v === 'true'), env.CONSOLE_SECURE_COOKIES) ?? false;
  const authHeader = overrides.authHeader ?? field('CONSOLE_AUTH_HEADER', z.string().regex(/^[A-Za-z0-9-]+$/, 'must be a header name'), env.CONSOLE_AUTH_HEADER);
  const proxySecret = overrides.proxySecret ?? field('CONSOLE_PROXY_SECRET', z.string().min(32, 'must be at least 32 characters'), env.CONSOLE_PROXY_SECRET);
  const allowedHosts = field('CONSOLE_ALLOWED_HOSTS', allowedHostsSchema, overrides.allowedHosts?.join(',') ?? env.CONSOLE_ALLOWED_HOSTS) ?? [];
  let accounts = overrides.accounts;
  if (accounts === undefined && env.CONSOLE_USERS_FILE) {
    let text: string | undefined;
    try {
      text = readFileSync(env.CONSOLE_USERS_FILE, 'utf8');
    } catch (err) {
      issues.push({ path: 'CONSOLE_USERS_FILE', message: `cannot be read (${(err as Error).message})` });
    }
    let json: unknown;
    try {
      json = text === undefined ? undefined : JSON.parse(text);
    } catch {
      issues.push({ path: 'CONSOLE_USERS_FILE', message: 'is not JSON: it must be an array of { "name", "role", "passwordHash" } accounts' });
    }
    if (json !== undefined) accounts = field('CONSOLE_USERS_FILE', consoleAccountsSchema, json);
  }
  const secretText = overrides.sessionSecret ?? field('CONSOLE_SESSION_SECRET', z.string().min(32, 'must be at least 32 characters'), env.CONSOLE_SESSION_SECRET);
  if (!isLoopback(host) && !accounts?.length) {
    issues.push({ path: 'CONSOLE_USERS_FILE', message: `is not set, and the console would listen on ${host}, beyond this machine: set accounts (docs/guide/operations.md, "Who may do what"), or listen on 127.0.0.1` });
  }
  if (authHeader && !isLoopback(host) && !proxySecret) {
    issues.push({ path: 'CONSOLE_PROXY_SECRET', message: `is not set, and CONSOLE_AUTH_HEADER would be believed from anyone who reaches ${host}: set a secret the proxy sends, or listen on 127.0.0.1 behind it` });
  }
  if (authHeader && !accounts?.length) issues.push({ path: 'CONSOLE_USERS_FILE', message: 'is not set, and CONSOLE_AUTH_HEADER needs the accounts (and their roles) it may name' });
  if (issues.length > 0) throw new ConfigError(issues);
  return {
    host,
    port,
    accounts: accounts ?? [],
    sessionSecret: secretText === undefined ? randomBytes(32) : Buffer.isBuffer(secretText) ? secretText : Buffer.from(secretText, 'utf8'),
    sessionTtlMs: overrides.sessionTtlMs ?? (hours ?? 8) * 3600_000,
    temporalUiUrl,
    secureCookies,
    authHeader: authHeader?.toLowerCase(),
    proxySecret,
    allowedHosts: allowedHosts.map((name) => hostNameOf(name)!),
  };
}
