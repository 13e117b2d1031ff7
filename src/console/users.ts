// The console's accounts: who may sign in, with which role. Passwords are kept only as scrypt
// hashes (`jobctl console hash-password` makes one), compared in constant time.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { z } from 'zod';

const scrypt = promisify(scryptCallback) as (password: string, salt: Buffer, keylen: number, options: { N: number; r: number; p: number; maxmem: number }) => Promise<Buffer>;

/**
 * What a signed-in person may do: `viewer` reads (payloads only with `payloads: true`), `operator`
 * also cancels, redrives, discards and changes schedules.
 */
export type ConsoleRole = 'viewer' | 'operator';

/** A signed-in person, as every page and action sees them. */
export interface ConsoleUser {
  /** The name shown in the page and recorded in the DLQ's audit trail. */
  name: string;
  role: ConsoleRole;
  /** Whether job payloads are shown to them (always for an operator). */
  payloads: boolean;
}

/** One account of CONSOLE_USERS_FILE. */
export const consoleAccountSchema = z.strictObject({
  name: z.string().min(1).max(100).regex(/^[\w.@+-]+$/, 'may hold letters, digits and . _ @ + - only'),
  role: z.enum(['viewer', 'operator']),
  /** From `jobctl console hash-password`: `scrypt$<N>$<r>$<p>$<salt>$<hash>` (base64url). @defaultValue none: the account signs in only through the single sign-on proxy (CONSOLE_AUTH_HEADER) */
  passwordHash: z.string().regex(/^scrypt\$\d+\$\d+\$\d+\$[\w-]+\$[\w-]+$/, 'must be a hash from `jobctl console hash-password`').optional(),
  /** Show payloads to this viewer. @defaultValue false */
  payloads: z.boolean().optional(),
});

/** An account of CONSOLE_USERS_FILE. */
export type ConsoleAccount = z.infer<typeof consoleAccountSchema>;

/** The accounts file: an array of accounts with distinct names. */
export const consoleAccountsSchema = z.array(consoleAccountSchema).min(1, 'must name at least one account').refine((a) => new Set(a.map((u) => u.name)).size === a.length, 'names two accounts alike');

const params = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** Hashes a password for CONSOLE_USERS_FILE. */
export async function hashPassword(password: string): Promise<string> {
  const short = passwordTooShort(password);
  if (short) throw new Error(short);
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, 32, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** A console password's least length, in characters. */
export const minPasswordLength = 12;

/** Why `password` is too short for a console account, if it is. */
export function passwordTooShort(password: string): string | undefined {
  return password.length < minPasswordLength ? `a console password needs at least ${minPasswordLength} characters (got ${password.length})` : undefined;
}

/** Whether `password` matches `stored` (a {@link hashPassword} result). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length, { N: Number(n), r: Number(r), p: Number(p), maxmem: params.maxmem });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** The user an account signs in as. */
export function userOf(account: ConsoleAccount): ConsoleUser {
  return { name: account.name, role: account.role, payloads: account.role === 'operator' || account.payloads === true };
}
