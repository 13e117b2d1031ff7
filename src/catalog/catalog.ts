import type { z } from 'zod';
import type { JobDefinition } from './define-job';
import { CatalogError } from './catalog-error';
import { presetProblems, type CatalogProblem } from './preset-problems';
import { dependencyProblems } from './dependency-plan';
import { sensitiveProblems } from './sensitive';
import { limitProblems, type JobLimits } from './job-limits';
import { planQueues } from './task-queues';
import { ratePerKeyProblems } from './rate-per-key';

/** A job definition of any payload, type name and presets. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the payload type is each definition's own
export type AnyJobDefinition = JobDefinition<any, string, string>;

/** Payload schemas by job type name. */
export type PayloadSchemas = Record<string, z.ZodType>;

/**
 * The job types one deployment runs: their definitions (plain data, which workflow code may import)
 * and their payload schemas (zod, which it never does). The client validates and starts jobs
 * through it, the worker serves its queues, `jobctl` finds it by `--catalog`. Build one with
 * {@link defineCatalog}; `S` maps each type name to its payload schema, which is what types
 * `enqueue` and the rest of the client.
 */
export interface Catalog<out S extends PayloadSchemas = PayloadSchemas> {
  // Type names are plain strings here and typed through `S` by their users (the client's methods):
  // `keyof S` in a member would make a catalog of some types unassignable to `Catalog`.
  /** The definitions, in the order given. */
  readonly definitions: readonly JobDefinition[];
  /** The payload schema of each type. */
  readonly payloads: S;
  /** The type names, in the order given. */
  readonly types: readonly string[];
  /** Whether `type` is one of this catalog's. */
  has(type: string): boolean;
  /** The definition of a type; `undefined` for a type the catalog lacks. */
  definition(type: string): JobDefinition | undefined;
  /** The definition whose workflow has this workflow type (a map lookup). */
  byWorkflowType(workflowType: string): JobDefinition | undefined;
}

/** The type names of a catalog. */
export type JobTypeOf<C extends Catalog> = C extends Catalog<infer S> ? keyof S & string : never;

/** The payload a caller passes for type `T` of catalog `C`, before the schema's defaults apply. */
export type PayloadInputOf<C extends Catalog, T extends JobTypeOf<C>> = C extends Catalog<infer S> ? z.input<S[T]> : never;

/** The payload of type `T` of catalog `C` after validation. */
export type PayloadOf<C extends Catalog, T extends JobTypeOf<C>> = C extends Catalog<infer S> ? z.output<S[T]> : never;

type PayloadOfDefinition<D> = D extends JobDefinition<infer P, string, string> ? P : never;

/** For each job type, a schema whose output is the payload its definition's `summary` and `idempotencyKey` take. */
type SchemasFor<D extends AnyJobDefinition> = { [K in D['type']]: z.ZodType<PayloadOfDefinition<Extract<D, { type: K }>>> };

/** What {@link defineCatalog} takes. */
export interface CatalogSpec<D extends readonly AnyJobDefinition[], S extends PayloadSchemas> {
  /** The job types' definitions (`defineJob`). */
  jobs: D;
  /**
   * The payload schema of every job type, by type name. A type without a schema, or a schema for a
   * type not in `jobs`, is a compile error. Keep the schemas in modules that workflow code never
   * imports: the SDK evaluates a workflow's imports again for every job (docs/performance.md).
   */
  payloads: S;
}

/** Job type names: what a workflow ID, a search attribute and a task queue suffix can carry. */
const typeNamePattern = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/**
 * Builds a {@link Catalog} and checks it: unique type and workflow names, a schema for every type
 * and none extra, declared presets, consistent queue limits. Throws {@link CatalogError} naming
 * the job type and field of each problem.
 */
export function defineCatalog<const D extends readonly AnyJobDefinition[], const S extends SchemasFor<D[number]>>(
  spec: CatalogSpec<D, S> & { payloads: Record<Exclude<keyof S, D[number]['type']>, never> },
): Catalog<{ [K in keyof S]: S[K] }> {
  const definitions = spec.jobs as readonly JobDefinition[];
  const payloads = spec.payloads as { [K in keyof S]: S[K] };
  const problems = catalogProblems(definitions, payloads);
  if (problems.length > 0) throw new CatalogError(problems);
  const byType = new Map(definitions.map((d) => [d.type, d]));
  const byWorkflow = new Map(definitions.map((d) => [d.workflowType, d]));
  return {
    definitions,
    payloads,
    types: definitions.map((d) => d.type),
    has: (type) => byType.has(type),
    definition: (type) => byType.get(type),
    byWorkflowType: (workflowType) => byWorkflow.get(workflowType),
  };
}

/** Whether `value` is a catalog {@link defineCatalog} built (e.g. the export of a module named by `--catalog`). */
export function isCatalog(value: unknown): value is Catalog {
  const c = value as Partial<Catalog> | undefined;
  return typeof c === 'object' && c !== null && Array.isArray(c.types) && typeof c.byWorkflowType === 'function' && typeof c.payloads === 'object';
}

function catalogProblems(definitions: readonly AnyJobDefinition[], payloads: PayloadSchemas): CatalogProblem[] {
  const problems: CatalogProblem[] = [];
  if (!Array.isArray(definitions) || definitions.length === 0) return [{ path: 'jobs', message: 'must list at least one job type (defineJob)' }];
  const seenTypes = new Set<string>();
  // Every name given, valid or not: a schema for a misspelt type is not also "a schema without a type".
  const named = new Set(definitions.map((d) => String(d?.type)));
  const seenWorkflows = new Map<string, string>();
  definitions.forEach((d, i) => {
    const at = `jobs.${i} (${String(d?.type)})`;
    if (typeof d?.type !== 'string' || !typeNamePattern.test(d.type) || d.type.length > 64) {
      problems.push({ path: `${at}.type`, message: 'must be 1 to 64 characters of lower-case letters, digits and single dashes, starting with a letter, e.g. charge-subscription' });
      return;
    }
    if (seenTypes.has(d.type)) problems.push({ path: `${at}.type`, message: `job type ${d.type} is defined twice` });
    seenTypes.add(d.type);
    if (typeof d.workflowType !== 'string' || !/^[A-Za-z_$][\w$]*$/.test(d.workflowType)) {
      problems.push({ path: `${at}.workflowType`, message: 'must be the name of the exported workflow function, e.g. chargeSubscriptionWorkflow' });
    } else if (seenWorkflows.has(d.workflowType)) {
      problems.push({ path: `${at}.workflowType`, message: `${d.workflowType} is already the workflow of ${seenWorkflows.get(d.workflowType)}` });
    } else seenWorkflows.set(d.workflowType, d.type);
    if (!d.presets || !Object.prototype.hasOwnProperty.call(d.presets, d.mainPreset)) {
      problems.push({ path: `${at}.mainPreset`, message: `names no preset of the job's (presets: ${Object.keys(d.presets ?? {}).join(', ') || 'none'})` });
    }
    problems.push(...presetProblems(d, at));
    problems.push(...ratePerKeyProblems(d, at));
    problems.push(...limitProblems(d.limits as JobLimits | undefined, at));
    problems.push(...sensitiveProblems(d.sensitive, topLevelKeys(payloads[d.type]), at));
    if (!Object.prototype.hasOwnProperty.call(payloads, d.type)) problems.push({ path: `payloads.${d.type}`, message: 'is missing: every job type needs its payload schema' });
    if (d.queue && (typeof d.queue.name !== 'string' || !/^[\w.-]{1,64}$/.test(d.queue.name))) {
      problems.push({ path: `${at}.queue.name`, message: 'must be 1 to 64 characters of A-Z, a-z, 0-9, _ . -' });
    }
  });
  for (const type of Object.keys(payloads)) {
    if (!named.has(type)) problems.push({ path: `payloads.${type}`, message: 'has no job type of that name in jobs' });
  }
  const typed = definitions.filter((d) => typeof d?.type === 'string');
  problems.push(...dependencyProblems(typed, (i) => `jobs.${definitions.indexOf(typed[i]!)} (${typed[i]!.type})`));
  try {
    planQueues('catalog', typed);
  } catch (err) {
    problems.push({ path: 'jobs.queue', message: err instanceof Error ? err.message : String(err) });
  }
  return problems;
}

/** The top-level field names of an object schema (zod's `shape`), or undefined for another schema. */
function topLevelKeys(schema: unknown): string[] | undefined {
  const shape = (schema as { shape?: unknown } | undefined)?.shape;
  return shape && typeof shape === 'object' ? Object.keys(shape) : undefined;
}
