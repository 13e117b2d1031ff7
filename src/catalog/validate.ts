import type { Duration } from '@temporalio/common';
import { msToNumber } from '../shared/sdk-internals';
import type { z } from 'zod';
import type { Catalog, PayloadSchemas } from './catalog';
import { identityChange } from './define-job';
import { fairnessOptionIssues, type FairnessOptions } from './fairness';
import { mergePatch } from '../shared/merge-patch';
import { omitKeys, parseTolerant, type UnknownKeys } from './unknown-keys';
import { jobIdPattern, maxDelayMs, maxJobIdLength, maxPayloadBytes } from '../shared/limits';
import { InvalidOptionError, InvalidPayloadError, UnknownJobTypeError, type FieldIssue } from '../shared/errors';
import { issuesFromZod } from '../shared/zod-issues';
import { shownValue } from '../shared/shown-value';

/** Checks that `type` is one of the catalog's; throws {@link UnknownJobTypeError} otherwise. */
export function assertJobType<S extends PayloadSchemas>(catalog: Catalog<S>, type: string): asserts type is keyof S & string {
  if (!catalog.has(type)) throw new UnknownJobTypeError(type, catalog.types);
}

/**
 * Parses a payload against its job type's schema: the one check of a payload at a boundary (the
 * client before it enqueues, the worker before a redrive starts). `unknownKeys` says what becomes
 * of keys the schema does not know ({@link UnknownKeys}): the client refuses them (its own schema
 * is the truth for what it sends: a misspelt field is an error), the worker's restart keeps them
 * (a newer client added them; a newer worker may run the job). Throws {@link UnknownJobTypeError}
 * for a type the catalog lacks and {@link InvalidPayloadError} listing each bad field.
 */
export function validatePayload<S extends PayloadSchemas, T extends string>(
  catalog: Catalog<S>,
  type: T,
  payload: unknown,
  unknownKeys: UnknownKeys = 'keep',
): T extends keyof S ? z.output<S[T]> : never {
  assertJobType(catalog, type);
  const schema: z.ZodType = catalog.payloads[type] as z.ZodType;
  const result = unknownKeys === 'refuse' ? schema.safeParse(payload) : parseTolerant(schema, payload, unknownKeys);
  if (!result.success) throw new InvalidPayloadError(type, issuesFromZod(result.error, 'payload'));
  const broken = brokenTextPaths(result.data, 'payload');
  if (broken.length > 0) throw new InvalidPayloadError(type, broken.map((path) => ({ path, message: 'is not valid Unicode text (a lone surrogate), which would be stored altered' })));
  const bytes = Buffer.byteLength(JSON.stringify(result.data));
  if (bytes > maxPayloadBytes) throw new InvalidPayloadError(type, [{ path: 'payload', message: `is ${bytes} bytes as JSON; the limit is ${maxPayloadBytes}` }]);
  return result.data as T extends keyof S ? z.output<S[T]> : never;
}

/**
 * The payload a redrive starts a dead-lettered job with: its own, or patched with a JSON Merge
 * Patch and validated. A patch may not change what the job ID derives from
 * ({@link identityChange}). Throws {@link InvalidPayloadError} naming the field.
 */
export function validateRedrivePayload<S extends PayloadSchemas>(catalog: Catalog<S>, type: string, payload: unknown, patch: unknown): unknown {
  return patch === undefined ? payload : validatePatchedPayload(catalog, type, payload, mergePatch(payload, patch));
}

/**
 * Validates a patched payload (`after`) against the type's schema and the unpatched one's identity
 * ({@link validateRedrivePayload}), naming every problem at once: the schema's, keys the patch
 * brought that the schema does not know (a typo; refused in the schema's words, while keys the
 * unpatched payload had already are kept: a newer client sent them), and a change to what the job
 * ID derives from, whether or not the rest is valid yet.
 */
export function validatePatchedPayload<S extends PayloadSchemas>(catalog: Catalog<S>, type: string, before: unknown, after: unknown): unknown {
  assertJobType(catalog, type);
  const carried = unknownKeyPaths(catalog, type, before).filter((path) => hasPath(after, path));
  const checked = (catalog.payloads[type] as z.ZodType).safeParse(omitKeys(after, carried));
  const issues: FieldIssue[] = checked.success ? [] : issuesFromZod(checked.error, 'payload');
  const definition = catalog.definition(type)!;
  let changed: string | undefined;
  try {
    changed = identityChange(definition, before, checked.success ? checked.data : after);
  } catch {
    changed = undefined; // a key of an invalid payload may throw; the schema's issues say why
  }
  if (changed) issues.push(...identityFields(definition, before, after).map((path) => ({ path, message: changed })));
  if (issues.length > 0) throw new InvalidPayloadError(type, issues);
  return validatePayload(catalog, type, after, 'keep');
}

/** Where `payload` has keys the type's schema does not know, as key paths (`['template', 'locale']`). */
function unknownKeyPaths<S extends PayloadSchemas>(catalog: Catalog<S>, type: string, payload: unknown): PropertyKey[][] {
  const parsed = parseTolerant(catalog.payloads[type] as z.ZodType, payload, 'strip');
  return parsed.success ? parsed.unknownKeys : [];
}

function hasPath(value: unknown, path: readonly PropertyKey[]): boolean {
  let at = value;
  for (const key of path) {
    if (typeof at !== 'object' || at === null || !Object.prototype.hasOwnProperty.call(at, key)) return false;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return true;
}

/**
 * The fields a patch changed that the job ID derives from: each top-level field whose old value,
 * put back alone, gives the old ID again (`payload.paymentId`); `payload` when none does alone.
 */
function identityFields(definition: NonNullable<ReturnType<Catalog['definition']>>, before: unknown, after: unknown): string[] {
  const key = definition.idempotencyKey as ((payload: unknown) => string) | undefined;
  if (!key || typeof before !== 'object' || before === null || typeof after !== 'object' || after === null) return ['payload'];
  const was = key(before);
  const old = before as Record<string, unknown>;
  const fields = Object.keys(after).filter((k) => JSON.stringify(old[k]) !== JSON.stringify((after as Record<string, unknown>)[k]));
  const culprits = fields.filter((k) => {
    try {
      return key({ ...after, [k]: old[k] }) === was;
    } catch {
      return false;
    }
  });
  return culprits.length > 0 ? culprits.map((k) => `payload.${k}`) : ['payload'];
}

/** Checks a caller-chosen job ID, delay, priority and fairness; throws {@link InvalidOptionError} naming each bad one. */
export function validateOptions(options: { id?: string; delay?: Duration; priority?: number } & FairnessOptions): { id?: string; delayMs?: number; priority?: number } {
  const issues: FieldIssue[] = fairnessOptionIssues(options);
  const { id, delay, priority } = options;
  if (priority !== undefined && !(Number.isInteger(priority) && priority >= 1 && priority <= 5)) {
    issues.push({ path: 'priority', message: `must be a whole number from 1 (highest) to 5 (lowest), got ${shownValue(priority)}` });
  }
  if (id !== undefined && (typeof id !== 'string' || id.length > maxJobIdLength || !jobIdPattern.test(id))) {
    issues.push({ path: 'id', message: `must be 1 to ${maxJobIdLength} characters of A-Z, a-z, 0-9 and . _ : @ / + = -` });
  }
  let delayMs: number | undefined;
  if (delay !== undefined) {
    try {
      delayMs = msToNumber(delay);
      if (!Number.isFinite(delayMs) || delayMs < 0) throw new RangeError();
    } catch {
      issues.push({ path: 'delay', message: `must be a duration such as 30s, 5m or 1500 (ms), got ${shownValue(delay)}` });
    }
    if (delayMs !== undefined && delayMs > maxDelayMs) issues.push({ path: 'delay', message: 'must be at most 365 days' });
  }
  if (issues.length > 0) throw new InvalidOptionError(issues);
  return { id, delayMs, priority };
}

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Paths of strings (values or keys) that are not well-formed UTF-16. Temporal stores payloads as
 * UTF-8, where a lone surrogate becomes U+FFFD: the job would run with text other than what was sent.
 */
function brokenTextPaths(value: unknown, path: string): string[] {
  if (typeof value === 'string') return loneSurrogate.test(value) ? [path] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => brokenTextPaths(v, `${path}.${i}`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => (loneSurrogate.test(k) ? [`${path}.${k}`] : brokenTextPaths(v, `${path}.${k}`)));
}
