// The outbox relay: in the worker, it starts on Temporal the jobs that transactions of the jobs
// database committed to the outbox (src/outbox/enqueue-in-transaction.ts), and marks their rows.
import type { Kysely, Selectable } from 'kysely';
import type { Catalog } from '../catalog/catalog';
import type { PreparedJob } from '../catalog/prepare-job';
import { IdConflictError, describeError } from '../shared/errors';
import { claimBatch, releaseLease } from './relay-claim';
import { preparedJobOf, type OutboxDatabase, type OutboxOutcome, type OutboxTable } from './outbox-row';
import { pruneOutbox } from './outbox-backlog';

/** The lines the relay logs (a pino logger fits). */
export interface RelayLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** Options of {@link OutboxRelay}. */
export interface OutboxRelayOptions {
  /** The jobs database. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the catalog's tables plus the outbox's
  db: Kysely<any>;
  /** The worker's catalog: the relay starts the rows of its types and leaves the others to relays that know them. */
  catalog: Pick<Catalog, 'types' | 'definition'>;
  /** Starts a job as `JobClient.start` does: `existed` when its ID holds this job already. */
  start: (job: PreparedJob) => Promise<{ existed: boolean }>;
  logger: RelayLogger;
  /** Who relays, for the SQLite lease: the worker's identity. */
  holder: string;
  /** Rows taken at a time. @defaultValue 200 */
  batchSize?: number;
  /** Starts in flight at a time within a batch. @defaultValue 100 */
  concurrency?: number;
  /** How often an idle relay looks for rows (a PostgreSQL commit wakes it at once). @defaultValue 250 ms */
  pollMs?: number;
  /** How long a SQLite relay's lease lasts unless renewed. @defaultValue 30 s */
  leaseMs?: number;
  /** How long a relayed row is kept (for an audit, and `jobctl stats`' conflicts), then pruned. @defaultValue 24 h */
  retentionMs?: number;
  /** Wakes the relay when a commit notifies (PostgreSQL LISTEN); returns how to stop listening. @defaultValue none: polling only */
  listen?: (wake: () => void) => Promise<() => Promise<void>>;
}

const minute = 60_000;

/** 1 s doubling with each failure, at most `capMs`: how long the relay waits after `failures` in a row. */
const backoffMs = (failures: number, capMs: number) => Math.min(capMs, 1000 * 2 ** Math.min(failures, 16));

/** The relay's loop: take a batch, start its jobs, mark the rows; again at once while batches come full, else after `pollMs` or a notification. */
export class OutboxRelay {
  private stopped = false;
  private running?: Promise<void>;
  private wakeUp?: () => void;
  private woken = false;
  private unlisten?: () => Promise<void>;
  private lastPrune = 0;
  private readonly batchSize: number;

  constructor(private readonly options: OutboxRelayOptions) {
    this.batchSize = options.batchSize ?? 200;
  }

  /** Starts the loop (and the PostgreSQL listener). */
  async start(): Promise<void> {
    if (this.options.listen) {
      try {
        this.unlisten = await this.options.listen(() => this.wake());
      } catch (err) {
        this.options.logger.warn({ error: describeError(err) }, 'outbox:listen-failed — the relay polls instead');
      }
    }
    this.running = this.loop();
  }

  /** Stops after the batch in hand; its rows are marked first. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.running;
    await this.unlisten?.().catch(() => {});
    await releaseLease(this.options.db, this.options.holder).catch(() => {});
  }

  /** One batch: takes rows, starts their jobs, marks them. Returns how many rows it took. */
  async relayOnce(now = new Date()): Promise<number> {
    const { db, catalog, holder } = this.options;
    return claimBatch(db, { types: catalog.types, limit: this.batchSize, holder, leaseMs: this.options.leaseMs ?? 30_000, now }, (rows, held) => this.work(rows, held, now));
  }

  private async loop(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      let took = 0;
      this.woken = false;
      try {
        took = await this.relayOnce();
        failures = 0;
      } catch (err) {
        // The database is down or refuses: every row waits where it is; try again, less often.
        failures++;
        if (failures === 1 || failures % 20 === 0) this.options.logger.warn({ error: describeError(err), failures }, 'outbox:relay-failed — the rows wait in the outbox; retrying');
      }
      if (Date.now() - this.lastPrune > minute) await this.prune();
      if (this.stopped) break;
      if (took < this.batchSize) await this.idle(failures > 0 ? backoffMs(failures, 30_000) : (this.options.pollMs ?? 250));
    }
  }

  /** Waits `ms`, or less when woken; at once when a wake-up came while the relay was busy. */
  private idle(ms: number): Promise<void> {
    if (this.woken) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }

  /** A commit notified, or the relay stops: look again now. */
  private wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  private async prune(): Promise<void> {
    this.lastPrune = Date.now();
    try {
      const pruned = await pruneOutbox(this.options.db, new Date(Date.now() - (this.options.retentionMs ?? 24 * 60 * minute)));
      if (pruned > 0) this.options.logger.info({ pruned }, 'outbox:pruned');
    } catch (err) {
      this.options.logger.warn({ error: describeError(err) }, 'outbox:prune-failed');
    }
  }

  /** Starts each row's job, `concurrency` at a time, then marks the rows by outcome. */
  private async work(rows: Selectable<OutboxTable>[], db: Kysely<OutboxDatabase>, now: Date): Promise<void> {
    const settled = new Map<OutboxOutcome, number[]>();
    const conflicts: { seq: number; error: string }[] = [];
    const failed: { row: Selectable<OutboxTable>; error: string }[] = [];
    let next = 0;
    const lane = async () => {
      for (let i = next++; i < rows.length; i = next++) {
        const row = rows[i]!;
        const job = preparedJobOf(row, this.options.catalog, now)!;
        try {
          const { existed } = await this.options.start(job);
          const outcome: OutboxOutcome = existed ? 'existed' : 'started';
          settled.set(outcome, settled.get(outcome) ?? []).get(outcome)!.push(row.seq);
        } catch (err) {
          if (err instanceof IdConflictError) conflicts.push({ seq: row.seq, error: err.message });
          else failed.push({ row, error: describeError(err) });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(rows.length, this.options.concurrency ?? 100) }, lane));
    const at = new Date().toISOString();
    for (const [outcome, seqs] of settled) {
      await db.updateTable('job_outbox').set({ relayed_at: at, outcome }).where('seq', 'in', seqs).execute();
    }
    for (const { seq, error } of conflicts) {
      await db.updateTable('job_outbox').set({ relayed_at: at, outcome: 'conflict', last_error: error }).where('seq', '=', seq).execute();
      this.options.logger.warn({ seq, error }, 'outbox:conflict — the job ID is taken by another job; the row is not started');
    }
    for (const { row, error } of failed) {
      await db
        .updateTable('job_outbox')
        .set({ relay_attempts: row.relay_attempts + 1, last_error: error, next_attempt_at: new Date(Date.now() + backoffMs(row.relay_attempts, minute)).toISOString() })
        .where('seq', '=', row.seq)
        .execute();
    }
    if (failed.length > 0) this.options.logger.warn({ failed: failed.length, error: failed[0]!.error }, 'outbox:start-failed — retried with a backoff');
  }
}
