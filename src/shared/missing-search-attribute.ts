import { isGrpcServiceError } from '@temporalio/client';
import { ErrorType, JobsError } from './errors';
import { customSearchAttributes } from './search-attributes';

/** A search attribute type as the `temporal` CLI and `tcld` spell it. */
export type SearchAttributeTypeName = 'Text' | 'Keyword' | 'Int' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList';

/**
 * Why a search attribute stops jobs: `not-registered` (the server refused a start or a schedule
 * for it), `not-permitted` (the worker may not register it, e.g. Temporal Cloud), `wrong-type`
 * (it exists with another type) or `not-visible` (registered, but the server did not show it in time).
 */
export type MissingSearchAttributeReason = 'not-registered' | 'not-permitted' | 'wrong-type' | 'not-visible';

/** What {@link MissingSearchAttributeError} is built from. */
export interface MissingSearchAttributeInput {
  /** The attribute's name, e.g. `JobType`. */
  name: string;
  /** The type jobs need it to have. */
  type: SearchAttributeTypeName;
  namespace: string;
  reason: MissingSearchAttributeReason;
  /** The type it is registered with, for `wrong-type`. */
  registeredAs?: string;
  /** How long the worker waited, in ms, for `not-visible`. */
  waitedMs?: number;
  cause?: unknown;
}

/** The commands that create a search attribute: the `temporal` CLI's, and Temporal Cloud's `tcld`. */
export function searchAttributeFixCommands(namespace: string, name: string, type: SearchAttributeTypeName): { temporal: string; tcld: string } {
  return {
    temporal: `temporal operator search-attribute create --namespace ${namespace} --name ${name} --type ${type}`,
    tcld: `tcld namespace search-attributes add --namespace ${namespace} --search-attribute "${name}=${type}"`,
  };
}

/**
 * A custom search attribute that jobs are started with is missing from the namespace (or has the
 * wrong type), so no job can be enqueued there. The message names the attribute, its type, the
 * namespace and the command that creates it.
 */
export class MissingSearchAttributeError extends JobsError {
  /** The attribute's name, e.g. `JobType`. */
  readonly attribute: string;
  /** The type jobs need, e.g. `Keyword`. */
  readonly attributeType: SearchAttributeTypeName;
  readonly namespace: string;
  readonly reason: MissingSearchAttributeReason;

  constructor(input: MissingSearchAttributeInput) {
    super(ErrorType.MissingSearchAttribute, messageFor(input), { cause: input.cause });
    this.attribute = input.name;
    this.attributeType = input.type;
    this.namespace = input.namespace;
    this.reason = input.reason;
  }
}

function messageFor({ name, type, namespace, reason, registeredAs, waitedMs, cause }: MissingSearchAttributeInput): string {
  const fix = searchAttributeFixCommands(namespace, name, type);
  const create = `Create it with:\n  ${fix.temporal}\nor, on Temporal Cloud:\n  ${fix.tcld}`;
  const attribute = `the search attribute ${name} (${type})`;
  switch (reason) {
    case 'not-registered':
      return `${attribute} is not registered on namespace "${namespace}", so jobs cannot be started there. A worker registers it when it starts, where the server lets it. ${create}`;
    case 'not-permitted':
      return `${attribute} is not registered on namespace "${namespace}", and this connection may not register it (${grpcSummary(cause)}). ${create}`;
    case 'wrong-type':
      return `the search attribute ${name} is registered on namespace "${namespace}" as ${registeredAs ?? 'another type'}, but jobs need ${type}. A search attribute's type cannot be changed in place: remove it (temporal operator search-attribute remove --namespace ${namespace} --name ${name}), then create it as ${type}:\n  ${fix.temporal}`;
    case 'not-visible':
      return `${attribute} was registered on namespace "${namespace}", but the server did not list it within ${Math.round((waitedMs ?? 0) / 100) / 10}s. Check with \`temporal operator search-attribute list --namespace ${namespace}\`, then start the worker again.`;
  }
}

function grpcSummary(err: unknown): string {
  if (isGrpcServiceError(err)) return `${grpcStatusNames[err.code ?? -1] ?? `gRPC status ${String(err.code)}`}: ${err.details}`;
  return err instanceof Error ? err.message : String(err);
}

const grpcStatusNames: Record<number, string> = { 3: 'INVALID_ARGUMENT', 7: 'PERMISSION_DENIED', 12: 'UNIMPLEMENTED', 16: 'UNAUTHENTICATED' };

/** gRPC INVALID_ARGUMENT: how the server refuses a start or a query that names an unregistered attribute. */
const GRPC_INVALID_ARGUMENT = 3;

/**
 * What servers say of an unregistered attribute: SQL visibility "Namespace acme-jobs has no mapping
 * defined for search attribute JobType" (starts, schedules; Temporal 1.29), Elasticsearch "search
 * attribute JobType is not defined", queries "column name 'JobType' is not a valid search attribute".
 */
const unregisteredPattern = /no mapping defined for search attribute|is not defined|not a valid search attribute|unknown search attribute/i;

/**
 * The {@link MissingSearchAttributeError} that a failed start, schedule or query stands for, when
 * the server refused it (INVALID_ARGUMENT, anywhere in the cause chain) over one of `attributes`;
 * undefined for any other error.
 */
export function missingSearchAttributeIn(
  err: unknown,
  namespace: string,
  attributes: Readonly<Record<string, SearchAttributeTypeName>> = customSearchAttributes,
): MissingSearchAttributeError | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    if (!isGrpcServiceError(e) || e.code !== GRPC_INVALID_ARGUMENT || !unregisteredPattern.test(e.details)) continue;
    const details = e.details;
    const name = Object.keys(attributes).find((n) => new RegExp(`\\b${n}\\b`).test(details));
    if (name) return new MissingSearchAttributeError({ name, type: attributes[name]!, namespace, reason: 'not-registered', cause: err });
  }
  return undefined;
}
