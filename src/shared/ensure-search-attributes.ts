import { setTimeout as sleep } from 'node:timers/promises';
import { isGrpcServiceError, type ConnectionLike } from '@temporalio/client';
import type { Logger } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { MissingSearchAttributeError, missingSearchAttributeIn, type SearchAttributeTypeName } from './missing-search-attribute';
import { customSearchAttributes } from './search-attributes';

const { IndexedValueType } = temporal.api.enums.v1;

/** The service enum of each type name. */
const indexedValueTypes: Record<SearchAttributeTypeName, temporal.api.enums.v1.IndexedValueType> = {
  Text: IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Int: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  Double: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  Bool: IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  Datetime: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  KeywordList: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

/** A value of each type for the probe query, which only needs the server to accept the attribute's name. */
const probeValues: Record<SearchAttributeTypeName, string> = {
  Text: "''",
  Keyword: "''",
  KeywordList: "''",
  Int: '0',
  Double: '0',
  Bool: 'false',
  Datetime: "'1970-01-01T00:00:00Z'",
};

/** The custom search attributes to check, by name and type. */
export type SearchAttributeSpec = Readonly<Record<string, SearchAttributeTypeName>>;

/** The services used: those of a client `Connection` or a worker's `NativeConnection`. */
export type SearchAttributeServices = Pick<ConnectionLike, 'operatorService' | 'workflowService'>;

/** How one custom search attribute stands on a namespace. */
export interface SearchAttributeCheck {
  name: string;
  /** The type jobs need. */
  type: SearchAttributeTypeName;
  /** `wrong-type`: registered, with the type in {@link registeredAs}. */
  status: 'present' | 'missing' | 'wrong-type';
  registeredAs?: string;
  /**
   * `list`: read with the operator service's ListSearchAttributes. `probe`: that was refused (e.g.
   * PERMISSION_DENIED), so a visibility query naming the attribute told; its type is then unchecked.
   */
  via: 'list' | 'probe';
}

/** gRPC codes meaning "this connection may not do that here": PERMISSION_DENIED, UNIMPLEMENTED, UNAUTHENTICATED. */
const refusalCodes: ReadonlySet<number> = new Set([7, 12, 16]);

/** gRPC ALREADY_EXISTS: another worker registered the attribute first. */
const GRPC_ALREADY_EXISTS = 6;

function isRefusal(err: unknown): boolean {
  return isGrpcServiceError(err) && err.code !== undefined && refusalCodes.has(err.code);
}

function typeName(value: number): string {
  const known = Object.entries(indexedValueTypes).find(([, v]) => v === value);
  return known ? known[0] : (IndexedValueType[value] ?? `type ${value}`);
}

/** Whether the attribute exists, by a one-row visibility query that names it: for servers that refuse ListSearchAttributes. */
async function probe(services: SearchAttributeServices, namespace: string, name: string, type: SearchAttributeTypeName): Promise<boolean> {
  try {
    await services.workflowService.listWorkflowExecutions({ namespace, pageSize: 1, query: `${name} = ${probeValues[type]}` });
    return true;
  } catch (err) {
    if (missingSearchAttributeIn(err, namespace, { [name]: type })) return false;
    throw err;
  }
}

/** Reads how each of `attributes` stands on the namespace; changes nothing. */
export async function checkSearchAttributes(
  services: SearchAttributeServices,
  namespace: string,
  attributes: SearchAttributeSpec = customSearchAttributes,
): Promise<SearchAttributeCheck[]> {
  let registered: Record<string, number>;
  try {
    registered = (await services.operatorService.listSearchAttributes({ namespace })).customAttributes ?? {};
  } catch (err) {
    if (!isRefusal(err)) throw err;
    return Promise.all(
      Object.entries(attributes).map(async ([name, type]): Promise<SearchAttributeCheck> => ({
        name,
        type,
        status: (await probe(services, namespace, name, type)) ? 'present' : 'missing',
        via: 'probe',
      })),
    );
  }
  return Object.entries(attributes).map(([name, type]): SearchAttributeCheck => {
    const has = registered[name];
    if (has === undefined) return { name, type, status: 'missing', via: 'list' };
    if (has !== indexedValueTypes[type]) return { name, type, status: 'wrong-type', registeredAs: typeName(has), via: 'list' };
    return { name, type, status: 'present', via: 'list' };
  });
}

/** Options of {@link ensureSearchAttributes}. */
export interface EnsureSearchAttributesOptions {
  /** The attributes to ensure, by name and type. @defaultValue {@link customSearchAttributes} */
  attributes?: SearchAttributeSpec;
  /** How long to wait for newly registered attributes to be listed, in ms. @defaultValue 30000 */
  timeoutMs?: number;
  /** Pause between two checks while waiting, in ms. @defaultValue 250 */
  pollIntervalMs?: number;
  /** Where `search-attribute:registered` is logged. @defaultValue no logging */
  logger?: Pick<Logger, 'info'>;
}

/** What {@link ensureSearchAttributes} did. */
export interface EnsureSearchAttributesResult {
  /** The attributes this call registered; empty when all were there already. */
  registered: string[];
}

/**
 * Makes sure the namespace has `attributes`: registers the missing ones through the operator
 * service (idempotent: one that another worker registered meanwhile is fine), then waits until the
 * server lists them, since some servers apply a registration asynchronously. Throws
 * {@link MissingSearchAttributeError}, naming the command that creates the attribute, where this
 * connection may not register it (e.g. Temporal Cloud), where one has another type, or when the
 * wait times out.
 */
export async function ensureSearchAttributes(
  services: SearchAttributeServices,
  namespace: string,
  options: EnsureSearchAttributesOptions = {},
): Promise<EnsureSearchAttributesResult> {
  const { attributes = customSearchAttributes, timeoutMs = 30_000, pollIntervalMs = 250 } = options;
  const missing = usable(await checkSearchAttributes(services, namespace, attributes), namespace);
  if (missing.length === 0) return { registered: [] };
  const registered: string[] = [];
  for (const { name, type } of missing) {
    try {
      await services.operatorService.addSearchAttributes({ namespace, searchAttributes: { [name]: indexedValueTypes[type] } });
      registered.push(name);
    } catch (err) {
      if (isGrpcServiceError(err) && err.code === GRPC_ALREADY_EXISTS) continue;
      if (isRefusal(err)) throw new MissingSearchAttributeError({ name, type, namespace, reason: 'not-permitted', cause: err });
      throw err;
    }
  }
  const started = Date.now();
  for (;;) {
    const still = usable(await checkSearchAttributes(services, namespace, attributes), namespace);
    if (still.length === 0) break;
    const waitedMs = Date.now() - started;
    if (waitedMs >= timeoutMs) throw new MissingSearchAttributeError({ ...still[0]!, namespace, reason: 'not-visible', waitedMs });
    await sleep(Math.min(pollIntervalMs, timeoutMs - waitedMs));
  }
  if (registered.length > 0) options.logger?.info('search-attribute:registered', { namespace, attributes: registered, visibleAfterMs: Date.now() - started });
  return { registered };
}

/** The missing attributes of a check; throws for one registered with another type, which only an operator can fix. */
function usable(checks: SearchAttributeCheck[], namespace: string): SearchAttributeCheck[] {
  const wrong = checks.find((c) => c.status === 'wrong-type');
  if (wrong) throw new MissingSearchAttributeError({ ...wrong, namespace, reason: 'wrong-type' });
  return checks.filter((c) => c.status === 'missing');
}
