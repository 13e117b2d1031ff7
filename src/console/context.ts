// What every console route is given: the job client it reads and acts through (what jobctl
// uses; the console keeps no state of its own but its bulk tasks), its settings, the jobs database
// for the redrive preview's ledger and the job outbox, and the signed-in user of the request.
import type { Kysely } from 'kysely';
import type { JobClient } from '../client/job-client';
import type { ConsoleConfig } from './console-config';
import type { Session } from './session';
import type { BulkTasks } from './bulk-tasks';

/** The console's dependencies. */
export interface ConsoleDeps {
  /** The job client, with the deployment's catalog (payload schemas for patches). */
  jobs: JobClient;
  config: ConsoleConfig;
  /** The jobs database, for the ledger steps a redrive preview shows and the overview's job outbox. @defaultValue none: the preview says the ledger is not available, the overview leaves the outbox out */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any catalog's database; only the ledger and outbox tables are read
  db?: Kysely<any>;
  /** Bulk redrives and discards running on the server. */
  tasks: BulkTasks;
}

/** Hono's per-request variables in the console. */
export interface ConsoleEnv {
  Variables: {
    session: Session;
    /** Whether the session came from signing in (not the loopback console's implicit `local`). */
    signedIn: boolean;
  };
}
