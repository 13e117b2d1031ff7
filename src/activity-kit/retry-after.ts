/** Delay-seconds form of Retry-After (RFC 9110 §10.2.3): one or more digits, nothing else. */
const DELAY_SECONDS = /^\d+$/;

/**
 * IMF-fixdate, the preferred HTTP-date form (`Sun, 06 Nov 1994 08:49:37 GMT`), plus the two obsolete
 * forms that RFC 9110 still asks recipients to accept: RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`)
 * and asctime (`Sun Nov  6 08:49:37 1994`). Anything else is rejected, so a stray `Date.parse`
 * interpretation (e.g. `2024-01-01`) never becomes a retry delay.
 */
const HTTP_DATE = [
  /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Z][a-z]{5,8}, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/,
];

/**
 * The delay a `Retry-After` header asks for, in milliseconds from `now` (ms since the epoch; the
 * current time by default), for `retryAfter`.
 * Accepts delay-seconds (`120`) and an HTTP-date; a date in the past gives 0. Returns `undefined`
 * for a missing or malformed header, so the caller falls back to its own retry schedule.
 */
export function parseRetryAfter(header: string | null | undefined, now: number = Date.now()): number | undefined {
  if (header === null || header === undefined) return undefined;
  const value = header.trim();
  if (DELAY_SECONDS.test(value)) {
    const seconds = Number(value);
    return Number.isSafeInteger(seconds) ? seconds * 1000 : undefined;
  }
  if (!HTTP_DATE.some((form) => form.test(value))) return undefined;
  // asctime carries no zone; HTTP-dates are always UTC.
  const at = Date.parse(/GMT$/.test(value) ? value : `${value} GMT`);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
