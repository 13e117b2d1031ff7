// The operator console, started from a worker's (or any) process: `startConsole` from
// `durable-jobs/worker`. Its packages (hono, its Node server, htmx, uPlot) are optional peers,
// checked when it starts, so the worker entry point loads without them.
import { requirePart } from '../shared/optional-packages';
import type { RunningConsole, StartConsoleOptions } from '../console/server';

export { hashPassword, type ConsoleAccount, type ConsoleRole, type ConsoleUser } from '../console/users';
export type { RunningConsole, StartConsoleOptions } from '../console/server';
export type { ConsoleConfig, ConsoleConfigOverrides } from '../console/console-config';

/** Starts the console over a client's catalog; without its packages, one line naming them (jobs:missing-package). */
export async function startConsole(options: StartConsoleOptions): Promise<RunningConsole> {
  requirePart('console');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startConsole: start } = require('../console/server') as typeof import('../console/server');
  return start(options);
}
