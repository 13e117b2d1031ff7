import type { Db } from '../jobs/database/schema';
import type { EmailDeps } from './email';

/** Everything the activities need, built once by the worker. */
export interface ActivityDeps {
  /** Email transport settings. */
  email: EmailDeps;
  /** The jobs database: ledger, accounts, entries, synced records. */
  db: Db;
  /** Directory `generate-report` writes to. */
  reportsDir: string;
  /** Where `sync-data` pulls pages from. @defaultValue unset: sync-data steps fail with jobs:missing-config, and their jobs wait for a worker that has it */
  syncSourceUrl?: string;
}
