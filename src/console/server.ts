// Serves the console: `npm start` beside the worker, `jobctl console` on its own, or a library
// user's process over their own catalog.
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Kysely } from 'kysely';
import type { JobClient } from '../client/job-client';
import { createConsoleApp } from './app';
import { BulkTasks } from './bulk-tasks';
import { loadConsoleConfig, type ConsoleConfigOverrides } from './console-config';

/** Options of {@link startConsole}. */
export interface StartConsoleOptions extends ConsoleConfigOverrides {
  /** The job client it reads and acts through, with the deployment's catalog. */
  jobs: JobClient;
  /** The jobs database, for the ledger steps a redrive preview shows. @defaultValue none */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any catalog's database; only the ledger is read
  db?: Kysely<any>;
}

/** A running console. */
export interface RunningConsole {
  /** Its address, e.g. `http://127.0.0.1:7280`. */
  url: string;
  /** Whether people sign in (false: a loopback console without accounts). */
  accounts: boolean;
  /** Stops listening, after cancelling its bulk tasks (each stops after the operation in flight). */
  close: () => Promise<void>;
}

/**
 * Starts the operator console. Settings come from `options`, then the CONSOLE_* environment
 * variables (docs/guide/operations.md, "Who may do what"); it refuses to listen beyond loopback without
 * accounts.
 */
export async function startConsole(options: StartConsoleOptions): Promise<RunningConsole> {
  const { jobs, db, ...overrides } = options;
  const config = loadConsoleConfig(overrides);
  const tasks = new BulkTasks();
  const app = createConsoleApp({ jobs, db, config, tasks });
  const server = await new Promise<ServerType>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, () => resolve(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    url: `http://${host}:${port}`,
    accounts: config.accounts.length > 0,
    close: async () => {
      await tasks.stopAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
