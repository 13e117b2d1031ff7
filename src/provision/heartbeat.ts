import type { ProvisionLog } from './routes';

/** How often {@link buildWithHeartbeat} says a build is still running. @defaultValue 15 s */
export const heartbeatIntervalMs = 15_000;

/**
 * Runs the build of `binary`, logging `building <binary>: <how>` when it starts,
 * `still building <binary> (<n>s)` every `intervalMs` while it runs and `built <binary> in <n>s`
 * when it is done, so that a cold build of several minutes never looks hung. Plain lines, one per
 * beat, so they read the same in a terminal, a pipe and a CI log.
 */
export async function buildWithHeartbeat<T>(binary: string, how: string, log: ProvisionLog, build: () => Promise<T>, intervalMs = heartbeatIntervalMs): Promise<T> {
  const started = Date.now();
  const seconds = () => Math.round((Date.now() - started) / 1000);
  log(`building ${binary}: ${how}`, 'info');
  const timer = setInterval(() => log(`still building ${binary} (${seconds()}s)`, 'info'), intervalMs);
  try {
    const value = await build();
    log(`built ${binary} in ${seconds()}s`, 'info');
    return value;
  } finally {
    clearInterval(timer);
  }
}
