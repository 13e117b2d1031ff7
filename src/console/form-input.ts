// The fields of the dead-letter forms, read and checked on the server (the page's own checks are a
// convenience only): a rate, a reason, a JSON Merge Patch, and where to go back to. Each error is an
// InvalidOptionError naming its field.
import { InvalidOptionError } from '../shared/errors';

/** The fastest a console bulk task may go, in operations a second. */
export const maxConsoleRate = 100;

/** Longest reason kept in an audit record. */
export const maxReasonLength = 500;

/** A form's fields as Hono parses them. */
export type FormFields = Record<string, string | File | (string | File)[]>;

/** A field's text: trimmed, and empty when absent or not text. */
export function fieldText(form: FormFields, name: string): string {
  const value = form[name];
  return typeof value === 'string' ? value.trim() : '';
}

/** The `rate` field: operations per second, more than 0 and at most {@link maxConsoleRate}; `5/s` is read as 5. */
export function readRate(form: FormFields, name = 'rate'): number {
  const text = fieldText(form, name).replace(/\s*\/\s*s$/, '');
  const rate = text === '' ? Number.NaN : Number(text);
  if (!Number.isFinite(rate) || rate <= 0 || rate > maxConsoleRate) {
    throw new InvalidOptionError([{ path: name, message: `must be a number of operations per second, more than 0 and at most ${maxConsoleRate}, got ${JSON.stringify(fieldText(form, name).slice(0, 40))}` }]);
  }
  return rate;
}

/** The `reason` field: required for a discard, optional for a redrive; at most {@link maxReasonLength} characters. */
export function readReason(form: FormFields, required: boolean): string | undefined {
  const reason = fieldText(form, 'reason');
  if (reason === '' && required) throw new InvalidOptionError([{ path: 'reason', message: 'is required: say why, for the audit trail' }]);
  if (reason.length > maxReasonLength) throw new InvalidOptionError([{ path: 'reason', message: `must be at most ${maxReasonLength} characters, got ${reason.length}` }]);
  return reason === '' ? undefined : reason;
}

/** What the patch field holds: nothing, a JSON value, or text that is not JSON (with the parser's complaint). */
export type PatchInput = { text: '' } | { text: string; value: unknown } | { text: string; error: string };

/** The `patch` field: a JSON Merge Patch, or empty for none. */
export function readPatch(form: FormFields): PatchInput {
  const text = fieldText(form, 'patch');
  if (text === '') return { text: '' };
  try {
    return { text, value: JSON.parse(text) as unknown };
  } catch (err) {
    return { text, error: `patch: not valid JSON (${(err as Error).message})` };
  }
}

/** The patch's value, or an InvalidOptionError naming the patch when it is not JSON. */
export function patchValue(patch: PatchInput): unknown {
  if ('error' in patch) throw new InvalidOptionError([{ path: 'patch', message: patch.error.replace(/^patch: /, '') }]);
  return 'value' in patch ? patch.value : undefined;
}

/** The `back` field: a path on this console to return to, else `fallback`. */
export function readBack(form: FormFields, fallback: string): string {
  const back = fieldText(form, 'back');
  return /^\/(?![/\\])[^\s]*$/.test(back) ? back : fallback;
}
