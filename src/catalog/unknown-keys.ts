import type { z } from 'zod';

/**
 * What a payload validation does with keys its schema does not know (a field a newer client
 * added, or a typo):
 * - `refuse`: what the schema says; a strict object (`z.strictObject`, `.strict()`) refuses them.
 *   The client enqueues this way, against its own schema, so a misspelt field never starts a job.
 * - `strip`: parse as if every object were lenient, and leave them out of the result. An activity
 *   re-validates this way: an older worker ignores a field it has never heard of.
 * - `keep`: as `strip`, then put them back where they were, so that a payload passed on (a
 *   redrive's restart) still carries them for a worker that knows them.
 */
export type UnknownKeys = 'refuse' | 'strip' | 'keep';

/** A schema's parse that tolerated unknown keys. */
export type TolerantParse<T> = { success: true; data: T; unknownKeys: PropertyKey[][] } | { success: false; error: z.ZodError };

// Each round removes the keys zod reported; a key inside a removed key's value is gone with it, so
// a few rounds cover the deepest payload a schema describes.
const maxRounds = 8;

/**
 * Parses `value` against `schema` with `strip` or `keep` ({@link UnknownKeys}): every key a strict
 * object refuses, at any depth (nested objects, arrays, records, unions), is taken out and the
 * value parsed again; keys a lenient object drops are found by comparing input and output. Other
 * problems fail the parse as they would have. `unknownKeys` gives the path of each key found
 * (`['template', 'locale']`).
 */
export function parseTolerant<T>(schema: z.ZodType<T>, value: unknown, unknownKeys: 'strip' | 'keep'): TolerantParse<T> {
  let input = value;
  for (let round = 0; round < maxRounds; round++) {
    const result = schema.safeParse(input);
    if (result.success) {
      const dropped = droppedKeys(value, result.data, []);
      const data = unknownKeys === 'keep' ? restore(result.data, dropped) : result.data;
      return { success: true, data: data as T, unknownKeys: dropped.map((d) => [...d.path, d.key]) };
    }
    const refused = result.error.issues.flatMap((i) => (i.code === 'unrecognized_keys' ? i.keys.map((key) => ({ path: i.path, key })) : []));
    if (refused.length === 0) return { success: false, error: result.error };
    input = refused.reduce<unknown>((v, r) => without(v, r.path, r.key), input);
  }
  return { success: false, error: schema.safeParse(input).error! };
}

/** A copy of `value` without the keys at `paths` (as {@link TolerantParse} names them); the rest shared. */
export function omitKeys(value: unknown, paths: readonly PropertyKey[][]): unknown {
  return paths.reduce((v, p) => (p.length === 0 ? v : without(v, p.slice(0, -1), String(p.at(-1)))), value);
}

/** A key of the input that the output lacks, with its value. */
interface Dropped {
  path: PropertyKey[];
  key: string;
  value: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keys present in `input` and absent from `output`, walking both where both are objects or arrays. */
function droppedKeys(input: unknown, output: unknown, path: PropertyKey[]): Dropped[] {
  if (Array.isArray(input) && Array.isArray(output)) return input.flatMap((v, i) => (i < output.length ? droppedKeys(v, output[i], [...path, i]) : []));
  if (!isRecord(input) || !isRecord(output)) return [];
  return Object.entries(input).flatMap(([key, v]) =>
    Object.prototype.hasOwnProperty.call(output, key) ? droppedKeys(v, output[key], [...path, key]) : [{ path, key, value: v }],
  );
}

/** A copy of `value` without `key` in the object at `path`; the rest shared. */
function without(value: unknown, path: readonly PropertyKey[], key: string): unknown {
  if (path.length === 0) {
    if (!isRecord(value)) return value;
    return Object.fromEntries(Object.entries(value).filter(([k]) => k !== key));
  }
  const [head, ...tail] = path;
  if (Array.isArray(value) && typeof head === 'number') return value.map((v, i) => (i === head ? without(v, tail, key) : v));
  if (isRecord(value) && typeof head === 'string' && head in value) return { ...value, [head]: without(value[head], tail, key) };
  return value;
}

/** A copy of `output` with each dropped key put back where the input had it. */
function restore(output: unknown, dropped: Dropped[]): unknown {
  return dropped.reduce((out, d) => setAt(out, d.path, d.key, d.value), output);
}

function setAt(value: unknown, path: readonly PropertyKey[], key: string, v: unknown): unknown {
  if (path.length === 0) return isRecord(value) ? { ...value, [key]: v } : value;
  const [head, ...tail] = path;
  if (Array.isArray(value) && typeof head === 'number') return value.map((x, i) => (i === head ? setAt(x, tail, key, v) : x));
  if (isRecord(value) && typeof head === 'string' && head in value) return { ...value, [head]: setAt(value[head], tail, key, v) };
  return value;
}
