// `npm start` serves the operator console beside the worker (CONSOLE=false turns it off), over the
// worker's catalog and its jobs database, linking each job to the dev server's Web UI.
import type pino from 'pino';
import type { Catalog } from '../catalog/catalog';
import { JobClient } from '../client/job-client';
import { startConsole } from '../worker/console';
import { openDatabase } from '../db/database';
import type { Config } from '../shared/config';
import { ConfigError } from '../shared/errors';

/** The console `npm start` runs. */
export interface BundledConsole {
  url: string;
  accounts: boolean;
  close: () => Promise<void>;
}

/** Starts the console unless CONSOLE=false; its settings are the CONSOLE_* variables. */
export async function startBundledConsole(config: Config, catalog: Catalog, temporalUiUrl: string | undefined, logger: pino.Logger): Promise<BundledConsole | undefined> {
  if (process.env.CONSOLE === 'false') return undefined;
  const jobs = await JobClient.connect({ catalog });
  const db = openDatabase(config.databaseUrl);
  try {
    const options = { jobs, db, ...(temporalUiUrl && !process.env.TEMPORAL_UI_URL ? { temporalUiUrl } : {}) };
    // A second `npm start` on this machine (or anything else on 7280) moves the console, unless its port was chosen.
    const running = await startConsole(options).catch((err: unknown) => {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      if (process.env.CONSOLE_PORT) {
        throw new ConfigError([{ path: 'CONSOLE_PORT', message: `${process.env.CONSOLE_PORT} is already in use (another npm start?): choose another port, or CONSOLE=false for no console` }], { cause: err });
      }
      logger.warn('console:port-taken — port 7280 is in use: the console listens on a free port instead (set CONSOLE_PORT to choose one)');
      return startConsole({ ...options, port: 0 });
    });
    logger.info({ url: running.url, accounts: running.accounts }, 'console:started');
    return {
      url: running.url,
      accounts: running.accounts,
      close: async () => {
        await running.close();
        await jobs.close();
        await db.destroy();
      },
    };
  } catch (err) {
    await jobs.close();
    await db.destroy();
    throw err;
  }
}
