// Paged reads of a DLQ shard's state. A query's result travels as one payload, which Temporal caps
// (2 MB by default): a page stops at a count and at a byte budget, whichever comes first, and the
// caller asks for the next one after the last entry it got.
import {
  compareEntries,
  groupEntries,
  matchesFilter,
  type DeadLetterEntry,
  type DeadLetterFilter,
  type DeadLetterGroup,
  type DeadLetterState,
} from './dead-letter-entries';

/** Where a page starts: after this entry in the DLQ's order (see {@link compareEntries}). */
export interface DeadLetterPosition {
  lastFailedAt: string;
  id: string;
}

/** Input of the page query. */
export interface DeadLetterPageInput {
  filter?: DeadLetterFilter;
  /** Start after this entry. @defaultValue the first */
  after?: DeadLetterPosition;
  /** At most this many entries (capped at {@link maxPageEntries}). @defaultValue 100 */
  limit?: number;
}

/** One page of entries, oldest failure first. */
export interface DeadLetterPage {
  entries: DeadLetterEntry[];
  /** Whether entries after the last one match too. */
  more: boolean;
}

/** Input of the group page query. */
export interface DeadLetterGroupPageInput {
  /** Start after this fingerprint. @defaultValue the first */
  after?: string;
  /** At most this many groups (capped at {@link maxPageEntries}). @defaultValue 100 */
  limit?: number;
}

/** One page of groups, by fingerprint. */
export interface DeadLetterGroupPage {
  groups: DeadLetterGroup[];
  more: boolean;
}

/** Entries or groups in one page at most. */
export const maxPageEntries = 1000;

/** JSON bytes of one page at most: half of Temporal's default payload limit. A page holds at least one entry. */
export const pageByteBudget = 1_000_000;

/** The page of entries a filter selects after a position. */
export function pageEntries(state: DeadLetterState, input: DeadLetterPageInput = {}): DeadLetterPage {
  const filter = input.filter ?? {};
  const after = input.after;
  const matching = Object.values(state.entries)
    .filter((e) => matchesFilter(e, filter) && (!after || compareEntries(e, after) > 0))
    .sort(compareEntries);
  const page = fitted(matching, input.limit);
  return { entries: page, more: page.length < matching.length };
}

/** The page of groups (dead-lettered entries counted per fingerprint) after a fingerprint. */
export function pageGroups(state: DeadLetterState, input: DeadLetterGroupPageInput = {}): DeadLetterGroupPage {
  const after = input.after;
  const groups = groupEntries(state)
    .filter((g) => after === undefined || g.fingerprint > after)
    .sort((a, b) => (a.fingerprint < b.fingerprint ? -1 : 1));
  const page = fitted(groups, input.limit);
  return { groups: page, more: page.length < groups.length };
}

/** The first items that fit the limit and the byte budget. */
function fitted<T>(items: T[], limit = 100): T[] {
  const max = Math.max(1, Math.min(limit, maxPageEntries));
  const page: T[] = [];
  let bytes = 0;
  for (const item of items) {
    bytes += JSON.stringify(item).length;
    if (page.length >= max || (page.length > 0 && bytes > pageByteBudget)) break;
    page.push(item);
  }
  return page;
}
