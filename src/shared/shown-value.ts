/**
 * A value as an error message shows it: JSON, except the numbers JSON cannot write (`NaN`,
 * `Infinity`, which it turns into `null`) and `undefined`, cut at `max` characters.
 */
export function shownValue(value: unknown, max = 80): string {
  const text = typeof value === 'number' && !Number.isFinite(value) ? String(value) : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
