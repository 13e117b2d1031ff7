import os from 'node:os';
import type { Duration } from '@temporalio/common';
import { msToNumber } from '../shared/sdk-internals';
import { describeError } from '../shared/errors';
import { UsageError } from './cli-errors';
import { projectCatalog, type CatalogNeed } from './cli-catalog';
import type { JobClient } from '../client/job-client';

export { JobFailedError, UsageError } from './cli-errors';

/** Largest payload argument read from standard input, in bytes: well past the payload limit, so the limit's own error names it. */
const maxStdinBytes = 4 * 1024 * 1024;

/**
 * The text of a JSON argument: the argument itself, or standard input when it is `-` (for payloads
 * larger than a command line may carry, or piped from another tool).
 */
export async function readJsonArg(text: string, name: string): Promise<string> {
  if (text !== '-') return text;
  if (process.stdin.isTTY) throw new UsageError(`${name}: "-" reads the JSON from standard input, but nothing is piped in`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxStdinBytes) throw new UsageError(`${name}: more than ${maxStdinBytes} bytes on standard input`);
    chunks.push(chunk);
  }
  if (size === 0) throw new UsageError(`${name}: standard input was empty`);
  try {
    // fatal: bytes that are not UTF-8 would otherwise be stored as U+FFFD; a leading BOM is dropped.
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new UsageError(`${name}: standard input is not valid UTF-8`);
  }
}

/** Parses a JSON argument, naming it in the error. */
export function parseJson(text: string, name: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${name}: not valid JSON (${describeError(err)})`);
  }
}

/** Parses `--limit`: a whole number from 1 to `max`. */
export function parseLimit(text: string, max = 10_000): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new UsageError(`--limit: must be a whole number from 1 to ${max}, got ${JSON.stringify(text)}`);
  return n;
}

/** Parses `--priority`: a whole number from 1 (highest) to 5 (lowest); unset stays unset. */
export function parsePriority(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= 1 && n <= 5)) throw new UsageError(`--priority: must be a whole number from 1 (highest) to 5 (lowest), got ${JSON.stringify(text)}`);
  return n;
}

/** Parses a port option (`--port`): a whole number from 1 to 65535, named by the flag it came from. */
export function parsePort(text: string, name: string): number {
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= 1 && n <= 65535)) throw new UsageError(`${name}: must be a port, a whole number from 1 to 65535, got ${JSON.stringify(text)}`);
  return n;
}

/** Parses a duration option such as `30s`, `5m` or `1500` (ms): more than 0, at most a day. */
export function parseDuration(text: string, name: string): number {
  let ms: number;
  try {
    ms = msToNumber(text as Duration);
  } catch {
    ms = Number.NaN;
  }
  if (!Number.isFinite(ms) || ms <= 0 || ms > 24 * 60 * 60 * 1000) throw new UsageError(`${name}: must be a duration such as 30s or 5m (at most 1d), got ${JSON.stringify(text)}`);
  return ms;
}

/** Parses `--rate N/s` (or `N`): starts per second, more than 0 and at most 1000. */
export function parseRate(text: string): number {
  const n = Number(text.replace(/\/s$/, ''));
  if (!Number.isFinite(n) || n <= 0 || n > 1000) throw new UsageError(`--rate: must look like 5/s (more than 0, at most 1000 per second), got ${JSON.stringify(text)}`);
  return n;
}

/**
 * Who runs jobctl, for the DLQ's audit trail: JOBCTL_USER when set (a shared account, a CI job
 * naming the person), else the OS user. A system without a user name for this process (a
 * container's bare UID) is `uid:<n>`.
 */
export function jobctlUser(env: NodeJS.ProcessEnv = process.env): string {
  const named = env.JOBCTL_USER?.trim();
  if (named) {
    if (named.length > 200) throw new UsageError(`JOBCTL_USER: must be a name of at most 200 characters, got ${named.length}`);
    return named;
  }
  try {
    return os.userInfo().username;
  } catch {
    return `uid:${process.getuid?.() ?? 'unknown'}`;
  }
}

/**
 * Connects, runs, and always closes the connection. The client gets the project's catalog as the
 * command needs it ({@link CatalogNeed}); nothing that needs none loads it.
 */
export async function withClient<T>(run: (client: JobClient) => Promise<T>, need: CatalogNeed = 'none', operation = 'this command'): Promise<T> {
  const catalog = projectCatalog(need, operation);
  // Loaded here, not at the top: parsing a command's options must not load the SDK's gRPC client.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { JobClient } = require('../client/job-client') as typeof import('../client/job-client');
  const client = await JobClient.connect({ catalog });
  try {
    return await run(client);
  } finally {
    await client.close();
  }
}
