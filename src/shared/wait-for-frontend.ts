import { Connection } from '@temporalio/client';

/** Options of {@link waitForFrontend}. */
export interface WaitForFrontendOptions {
  /** How long to keep trying, in ms. */
  timeoutMs: number;
  /** Pause between tries, in ms. @defaultValue 250 */
  pollMs?: number;
  /** Each try's connect timeout, in ms. @defaultValue 1000 */
  connectTimeoutMs?: number;
  /** The server process's exit: once it settles, waiting stops. @defaultValue none */
  exited?: Promise<unknown>;
}

/** Why {@link waitForFrontend} stopped: the frontend answered, its process exited, or time ran out. */
export type FrontendWait = { answered: true } | { answered: false; exit: unknown } | { answered: false; exit?: undefined; lastError: unknown };

/**
 * Polls a Temporal frontend with a real call (GetSystemInfo) until it answers: a listening port
 * is not enough, a starting server accepts connections before it can serve them. Each caller words
 * its own error from the result.
 */
export async function waitForFrontend(address: string, options: WaitForFrontendOptions): Promise<FrontendWait> {
  const deadline = Date.now() + options.timeoutMs;
  const exited: { code?: unknown; done: boolean } = { done: false };
  void options.exited?.then((code) => Object.assign(exited, { code, done: true }));
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (exited.done) return { answered: false, exit: exited.code };
    try {
      const connection = await Connection.connect({ address, connectTimeout: options.connectTimeoutMs ?? 1000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return { answered: true };
      } finally {
        await connection.close();
      }
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, options.pollMs ?? 250));
    }
  }
  return { answered: false, lastError };
}
