// How a relay takes the outbox rows it starts, per database: on PostgreSQL each relay locks its
// batch (FOR UPDATE SKIP LOCKED), so several relay at once and none waits for another; SQLite has
// no row locks to skip, so one relay at a time holds the lease of each job type, and the others
// relay the types they hold or wait for a lease to lapse.
import type { Kysely, Selectable, Transaction } from 'kysely';
import { isPostgres } from '../db/database';
import type { OutboxDatabase, OutboxTable } from './outbox-row';

/** A job type's lease row in `job_outbox_relay`. */
const leaseName = (jobType: string) => `type:${jobType}`;

/** What a relay does with a batch it holds: starts its jobs and marks the rows, within the claim. */
export type WorkOnBatch = (rows: Selectable<OutboxTable>[], db: Kysely<OutboxDatabase>) => Promise<void>;

/** The rows a relay may start now: waiting, of the types it knows, not held back after a failed start; oldest first. */
function pending(db: Kysely<OutboxDatabase>, types: readonly string[], now: Date, limit: number) {
  return db
    .selectFrom('job_outbox')
    .selectAll()
    .where('relayed_at', 'is', null)
    .where('job_type', 'in', types)
    .where((eb) => eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', now.toISOString())]))
    .orderBy('seq')
    .limit(limit);
}

/**
 * Takes up to `limit` rows and runs `work` on them while they are held: in one transaction whose
 * row locks other relays skip (PostgreSQL), or under the lease (SQLite; none when another relay
 * holds it). Returns how many rows it took. A relay killed meanwhile leaves its rows unmarked (its
 * transaction rolls back, or its lease lapses), and the next relay starts them again: Temporal's
 * workflow ID makes that the same job.
 */
export async function claimBatch(db: Kysely<OutboxDatabase>, input: { types: readonly string[]; limit: number; holder: string; leaseMs: number; now: Date }, work: WorkOnBatch): Promise<number> {
  if (input.types.length === 0) return 0;
  if (isPostgres(db)) {
    return db.transaction().execute(async (trx: Transaction<OutboxDatabase>) => {
      const rows = await pending(trx, input.types, input.now, input.limit).forUpdate().skipLocked().execute();
      if (rows.length > 0) await work(rows, trx);
      return rows.length;
    });
  }
  const held: string[] = [];
  for (const type of input.types) if (await takeLease(db, leaseName(type), input.holder, input.leaseMs, input.now)) held.push(type);
  if (held.length === 0) return 0;
  const rows = await pending(db, held, input.now, input.limit).execute();
  if (rows.length > 0) await work(rows, db);
  return rows.length;
}

/**
 * Takes or renews a SQLite relay lease for `holder`; false while another relay holds it. A lease
 * with more than half its time left is not written again: an idle relay reads, and writes only
 * every `leaseMs / 2`.
 */
async function takeLease(db: Kysely<OutboxDatabase>, name: string, holder: string, leaseMs: number, now: Date): Promise<boolean> {
  const at = now.getTime();
  const lease = await db.selectFrom('job_outbox_relay').select(['holder', 'expires_at']).where('name', '=', name).executeTakeFirst();
  if (lease && lease.holder === holder && Number(lease.expires_at) - at > leaseMs / 2) return true;
  if (lease && lease.holder !== holder && Number(lease.expires_at) >= at) return false;
  if (!lease) await db.insertInto('job_outbox_relay').values({ name, holder, expires_at: at + leaseMs }).onConflict((oc) => oc.column('name').doNothing()).execute();
  // Taken only if it is still ours or still lapsed: another relay may have taken it since the read.
  const taken = await db
    .updateTable('job_outbox_relay')
    .set({ holder, expires_at: at + leaseMs })
    .where('name', '=', name)
    .where((eb) => eb.or([eb('holder', '=', holder), eb('expires_at', '<', at)]))
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) > 0;
}

/** Gives the SQLite leases back (a relay that stops), so that another relay need not wait for them to lapse. */
export async function releaseLease(db: Kysely<OutboxDatabase>, holder: string): Promise<void> {
  if (isPostgres(db)) return;
  await db.updateTable('job_outbox_relay').set({ expires_at: 0 }).where('holder', '=', holder).execute();
}
