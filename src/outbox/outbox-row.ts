// A job in the outbox, as a row of `job_outbox` (src/db/outbox-migration.ts): what an enqueue in a
// transaction writes and what the relay reads back to start it.
import type { Generated, Insertable, Selectable } from 'kysely';
import type { Catalog } from '../catalog/catalog';
import type { PreparedJob } from '../catalog/prepare-job';
import type { JobFairness } from '../catalog/job-fairness';
import type { ValidDebounce, ValidDedupe } from '../catalog/window-options';
import { payloadHash } from '../shared/payload-hash';

/** The outbox table. */
export interface OutboxTable {
  seq: Generated<number>;
  job_id: string;
  job_type: string;
  /** The payload after validation, as JSON. */
  payload: string;
  payload_hash: string;
  /** {@link OutboxOptions}, as JSON. */
  options: string;
  /** When the row was written (the writer's clock), ISO 8601. */
  enqueued_at: string;
  relay_attempts: Generated<number>;
  /** After a failed start (the server unreachable): not before then. */
  next_attempt_at: string | null;
  last_error: string | null;
  /** When the relay settled it (started it, or found its ID taken); null while it waits. */
  relayed_at: string | null;
  outcome: OutboxOutcome | null;
}

/** The lease that lets one relay at a time work on a SQLite database. */
export interface OutboxRelayTable {
  name: string;
  holder: string;
  expires_at: number;
}

/** The outbox's tables, for `Kysely<OutboxDatabase>`. */
export interface OutboxDatabase {
  job_outbox: OutboxTable;
  job_outbox_relay: OutboxRelayTable;
}

/** How the relay settled a row: started it, found it started (an earlier relay's start), or found its ID taken by another job. */
export type OutboxOutcome = 'started' | 'existed' | 'conflict';

/** A prepared job's options as stored: everything `JobClient.start` takes besides its definition, ID and payload. */
interface OutboxOptions {
  delayMs?: number;
  priority?: number;
  fairness?: JobFairness;
  debounce?: ValidDebounce;
  dedupe?: ValidDedupe;
}

/** The row that holds a prepared job until it is started. */
export function outboxRowOf(job: PreparedJob, enqueuedAt: Date): Insertable<OutboxTable> {
  const options: OutboxOptions = { delayMs: job.delayMs, priority: job.priority, fairness: job.fairness, debounce: job.debounce, dedupe: job.dedupe };
  return {
    job_id: job.id,
    job_type: job.definition.type,
    payload: JSON.stringify(job.payload),
    payload_hash: payloadHash(job.payload),
    options: JSON.stringify(options),
    enqueued_at: enqueuedAt.toISOString(),
    next_attempt_at: null,
    last_error: null,
    relayed_at: null,
    outcome: null,
  };
}

/**
 * The prepared job a row holds, to start now: its delay counts from when it was written, so a job
 * the relay starts late does not wait its whole delay again. Undefined for a type the catalog lacks.
 */
export function preparedJobOf(row: Selectable<OutboxTable>, catalog: Pick<Catalog, 'definition'>, now: Date): PreparedJob | undefined {
  const definition = catalog.definition(row.job_type);
  if (!definition) return undefined;
  const { delayMs, ...options } = JSON.parse(row.options) as OutboxOptions;
  const waited = now.getTime() - Date.parse(row.enqueued_at);
  const left = delayMs === undefined ? undefined : Math.max(0, delayMs - Math.max(0, waited));
  return { definition, id: row.job_id, payload: JSON.parse(row.payload) as unknown, ...options, ...(left ? { delayMs: left } : {}) };
}
