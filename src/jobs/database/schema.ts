import type { Kysely, Transaction } from 'kysely';
import type { LedgerTable } from '../../activity-kit';

/** An account that `process-payment` moves money between. Amounts are integers in minor units. */
export interface AccountsTable {
  id: string;
  /** ISO 4217 code, e.g. `EUR`. */
  currency: string;
  /** Money in the account; never negative. */
  balance: number;
  /** Part of the balance reserved by holds; never more than the balance. */
  held: number;
}

/** A hold that a payment placed on its from-account. One per payment ID. */
export interface HoldsTable {
  payment_id: string;
  /** The job that placed it. */
  job_id: string;
  account_id: string;
  amount: number;
  /** `held`, `captured` (money moved, hold still open), `released` (closed), `cancelled` (undone). */
  status: 'held' | 'captured' | 'released' | 'cancelled';
  updated_at: string;
}

/** One leg of a double-entry posting: each posting's legs sum to zero. */
export interface EntriesTable {
  payment_id: string;
  /** `capture:debit`, `capture:credit`, `reversal:debit`, `reversal:credit`. */
  leg: string;
  account_id: string;
  /** Signed amount in minor units: negative leaves the account, positive enters it. */
  amount: number;
  currency: string;
  created_at: string;
}

/** A record that `sync-data` pulled from its source. */
export interface SyncRecordsTable {
  /** The source's name for the record set (the job's `source`). */
  source: string;
  /** The record's ID at the source. */
  id: string;
  /** The record, as JSON. */
  data: string;
  /** The job that last wrote it. */
  job_id: string;
  updated_at: string;
}

/** The built-in job types' tables and the ledger, as Kysely sees them. */
export interface Database {
  ledger: LedgerTable;
  accounts: AccountsTable;
  holds: HoldsTable;
  entries: EntriesTable;
  sync_records: SyncRecordsTable;
}

/** A connection pool to the jobs database. */
export type Db = Kysely<Database>;

/** A transaction on the jobs database. */
export type Trx = Transaction<Database>;
