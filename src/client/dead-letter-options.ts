// What the DLQ client's calls take and return: list and page options, a page, redrive and discard options.
import type { DeadLetterEntry, DeadLetterFilter } from '../workflow-kit/dead-letter-entries';

/** Options of {@link DeadLetterQueue.list}, {@link DeadLetterQueue.page} and {@link DeadLetterQueue.entries}. */
export interface DeadLetterListOptions extends DeadLetterFilter {
  /** Only this job type's DLQ. @defaultValue every type: the catalog's, or without one every DLQ running on the task queue */
  type?: string;
  /** At most this many entries: a page's size (at most 1000), or a cap on {@link DeadLetterQueue.list}. @defaultValue 100 for a page, none for a list */
  limit?: number;
  /** Start after the entry this cursor (a page's `nextCursor`) names. @defaultValue the first */
  cursor?: string;
}

/** One page of {@link DeadLetterQueue.page}. */
export interface DeadLetterListPage {
  entries: DeadLetterEntry[];
  /** Pass as `cursor` for the next page; unset on the last one. */
  nextCursor?: string;
}

/** Options of {@link DeadLetterQueue.redrive}. */
export interface RedriveOptions {
  /** JSON Merge Patch applied to the payload; validated against the type's schema first. */
  patch?: unknown;
  /** Why, for the audit trail. */
  reason?: string;
  /** Who redrives, for the audit trail (the console's user, jobctl's OS user). @defaultValue unrecorded */
  by?: string;
}

/** Options of {@link DeadLetterQueue.discard}. */
export interface DiscardOptions {
  /** Why, for the audit trail. */
  reason?: string;
  /** Who discards, for the audit trail. @defaultValue unrecorded */
  by?: string;
}
