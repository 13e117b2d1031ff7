import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { describeError } from '../shared/errors';
import { ProvisionError, type RouteFailure } from './errors';

/** Settings every provisioning function reads. */
export interface ProvisionOptions {
  /** The cache directory, outside the repo. */
  cacheDir: string;
  /** Progress lines (`info`) and skipped routes (`debug`) go here. @defaultValue silent */
  log?: ProvisionLog;
}

/** Receives provisioning progress. */
export type ProvisionLog = (line: string, level: 'info' | 'debug') => void;

/** One way of obtaining a binary. `attempt` throws to say why this route did not work. */
export interface Route<T> {
  /** Shown in errors and logs, e.g. `cache (~/.cache/durable-jobs/…)`. */
  name: string;
  /** Produces the value, or throws with the reason. */
  attempt: () => Promise<T>;
  /**
   * A route the user chose (an explicit path): if it is set but fails, no later route is tried,
   * so a typo is an error instead of a silent fall-through. @defaultValue false
   */
  decisive?: boolean;
}

/** A route's setting is not given, so the next route is tried even after a decisive one. */
export class NotSetError extends Error {
  constructor() {
    super('not set');
  }
}

/** What {@link firstWorking} found, and by which route. */
export interface Provided<T> {
  value: T;
  route: string;
}

/** Tries the routes in order and returns the first that works; otherwise throws a {@link ProvisionError} naming each. */
export async function firstWorking<T>(what: string, routes: Route<T>[], log: ProvisionLog = () => {}): Promise<Provided<T>> {
  const failures: RouteFailure[] = [];
  for (const route of routes) {
    try {
      const value = await route.attempt();
      return { value, route: route.name };
    } catch (err) {
      failures.push({ route: route.name, reason: describeError(err) });
      log(`${what}: ${route.name}: ${describeError(err)}`, 'debug');
      if (route.decisive && !(err instanceof NotSetError)) break;
    }
  }
  throw new ProvisionError(what, failures);
}

/** Throws unless `file` exists and is executable. */
export async function assertExecutable(file: string): Promise<void> {
  try {
    await access(file, constants.X_OK);
  } catch {
    throw new Error(`${file} does not exist or is not executable`);
  }
}

/** The path an explicit setting names, checked to be executable; throws {@link NotSetError} when unset. */
export async function explicitPath(file: string | undefined): Promise<string> {
  if (!file) throw new NotSetError();
  await assertExecutable(file);
  return file;
}

/** Where the Temporal SDK downloads its binaries from; probed before the SDK route runs. */
export const sdkDownloadUrl = 'https://temporal.download/';

/** The first of `candidates` that is an executable file; throws `not cached yet` when none is. */
export async function firstExecutable(candidates: string[]): Promise<string> {
  for (const file of candidates) {
    if (await assertExecutable(file).then(() => true, () => false)) return file;
  }
  throw new Error('not cached yet');
}

/** Runs a command to completion; on failure the error carries the tail of its output. */
export function run(cmd: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { env: options.env, cwd: options.cwd, timeout: options.timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout);
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return reject(new Error(`\`${cmd}\` is not installed or not on PATH`));
      const tail = `${stdout}\n${stderr}`.trim().split('\n').slice(-5).join(' | ');
      reject(new Error(`\`${cmd} ${args.join(' ')}\` failed (${err.killed ? 'timed out' : `exit ${String(err.code)}`}): ${tail}`));
    });
  });
}

/** Fails within `timeoutMs` unless `url` answers at all, so a blocked download fails fast instead of hanging. */
export async function assertReachable(url: string, timeoutMs = 5000): Promise<void> {
  try {
    await fetch(url, { method: 'HEAD', signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
    throw new Error(`cannot reach ${new URL(url).host} (${describeError(err)}${cause})`);
  }
}
