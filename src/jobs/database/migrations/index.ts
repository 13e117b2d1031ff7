import type { Migration } from 'kysely';
import * as initial from './0001-initial';

/**
 * The built-in job types' migrations, by stored name (the worker runs them with the ledger's own).
 * Imported statically so the built package needs no file-system scan. Never rename one.
 */
export const builtInMigrations: Record<string, Migration> = {
  '0001-initial': initial,
};
