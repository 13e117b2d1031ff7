import type { Client } from '@temporalio/client';
import type { Logger } from '@temporalio/worker';
import type { Kysely, Migration } from 'kysely';
import type { Catalog, PayloadSchemas } from '../catalog/catalog';
import type { Config } from '../shared/config';

/** What the worker has opened for a catalog's activities when it builds them. */
export interface ActivityContextBase {
  /** A Temporal client on the worker's namespace, e.g. for a job that enqueues follow-up jobs. */
  client: Client;
  /** The worker's validated configuration. */
  config: Config;
  /** The worker's logger (the runtime's: LOG_LEVEL, LOG_FORMAT), e.g. for a warning about a setting at start. */
  logger: Logger;
}

/**
 * What the worker has opened for a catalog's activities: with `db`, the jobs database (the ledger
 * and the catalog's own tables, migrated) typed by the schema the definition's
 * {@link WorkerDefinition.database} names (`jobsDatabase<Schema>(…)`); without a database, no `db`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a database declared without a schema is untyped, as before
export type ActivityContext<DB = any> = ActivityContextBase & ([DB] extends [never] ? { db?: undefined } : { db: Kysely<DB> });

/** What a worker is about to serve, for {@link WorkerDefinition.checkSettings}. */
export interface SettingsContext {
  /** The job types this process serves: those chosen (`--types` / `WORKER_JOB_TYPES`, else every one) and those that share a task queue with them. */
  types: readonly string[];
  /** The types asked for by name (`--types`, `WORKER_JOB_TYPES`, the `types` option). @defaultValue undefined: every type of the catalog */
  chosen?: readonly string[];
  /** The worker's logger, for a warning about a setting. */
  logger: Logger;
}

/** The jobs database a catalog needs: the ledger for `runOnce`, plus the catalog's own tables. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a database declared without a schema is untyped, as before
export interface DatabaseDefinition<DB = any> {
  /**
   * The catalog's own migrations by name, run in name order together with the ledger's
   * (`durable-jobs-0001-ledger`). Names are stored: never rename one. @defaultValue none (the ledger only)
   */
  migrations?: Record<string, Migration>;
  /** Demo data, written when `npm start` runs its own dev server. @defaultValue none */
  seed?: (db: Kysely<DB>) => Promise<void>;
  /** Carries the schema's type only (see {@link jobsDatabase}); never set. */
  readonly schema?: (db: DB) => void;
}

/**
 * Declares the jobs database with the schema of its tables (the ledger's included: extend
 * `LedgerDatabase`), so that the activities factory gets `db` as `Kysely<DB>`, with no check
 * or cast: `database: jobsDatabase<BillingDatabase>({ migrations })`.
 */
export function jobsDatabase<DB>(definition: Omit<DatabaseDefinition<DB>, 'schema'>): DatabaseDefinition<DB> {
  return definition;
}

/**
 * Everything the worker needs to run a catalog: the catalog, the workflows module, the activities
 * and, when its activities call `runOnce`, a database. A team writes one next to its catalog and
 * passes it to `createWorker`/`runWorker`, or names its module in package.json for `npm start`-style
 * runners (`"durable-jobs": { "worker": "./dist/worker.js" }`).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see ActivityContext
export interface WorkerDefinition<S extends PayloadSchemas = PayloadSchemas, DB = any> {
  /** The job types to serve. */
  catalog: Catalog<S>;
  /**
   * The module that exports every catalog job's workflow function, e.g. `require.resolve('./workflows')`.
   * The worker adds the library's own workflows (the DLQ, windows, limiter) to its bundle.
   */
  workflowsPath: string;
  /** The activities the workflows call, or a factory given what the worker opened. @defaultValue none */
  activities?: object | ((context: ActivityContext<DB>) => object | Promise<object>);
  /** The jobs database, when the activities need one (`runOnce`, the catalog's tables): `jobsDatabase<Schema>({ migrations })`. Its URL is `DATABASE_URL`. @defaultValue none: no database is opened */
  database?: DatabaseDefinition<DB>;
  /**
   * Reads and checks the definition's own settings (its environment variables) at start, before
   * anything connects, so a bad one stops the worker at once with a message naming it (throw a
   * `ConfigError`); given the job types it is about to serve, so a setting only some types need is
   * checked where they run. @defaultValue none
   */
  checkSettings?: (config: Config, context: SettingsContext) => void;
  /** Lines `npm start` prints once the worker runs, e.g. how to enqueue a first job. @defaultValue none */
  banner?: (config: Config) => string[];
}

/** Declares a {@link WorkerDefinition}; the identity function that keeps its catalog's types and its database's schema. */
export function defineWorker<S extends PayloadSchemas, DB = never>(definition: WorkerDefinition<S, DB>): WorkerDefinition<S, DB> {
  return definition;
}
