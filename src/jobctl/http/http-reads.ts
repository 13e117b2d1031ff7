// When jobctl reads over Temporal's HTTP API instead of gRPC, and the reads themselves: loading
// the SDK's gRPC client and the whole protobuf API takes most of a command's time
// (docs/performance.md), and a record read needs neither.
import type { Catalog } from '../../catalog/catalog';
import { KeylessCodec } from '../../shared/encryption-codec';
import { defaultPayloadConverter } from '../../shared/sdk-internals';
import { isHttpAddress } from '../../shared/http-address';
import { configEnvNames, defaultTaskQueue } from '../../shared/config-env-names';
import { tracingConfigured } from '../../shared/tracing-env';
import { HttpApi, HttpApiUnavailable } from './http-api';
import { HttpJobReader } from './http-job-reader';

/**
 * Settings under which a read must go through the SDK client: TLS and API keys (the HTTP reads
 * speak plain HTTP), encryption keys (their codec), and tracing (the client's spans).
 */
const grpcOnly = ['TEMPORAL_TLS', 'TEMPORAL_TLS_CERT', 'TEMPORAL_TLS_KEY', 'TEMPORAL_API_KEY', 'ENCRYPTION_KEYS', 'ENCRYPTION_KEY_FILE'];

const set = (value: string | undefined): value is string => value !== undefined && value !== '';

/** The settings the HTTP reads check themselves: one that is not well formed sends the read to gRPC. */
const checkedHere = new Set(['TEMPORAL_ADDRESS', 'TEMPORAL_HTTP_ADDRESS', 'TEMPORAL_NAMESPACE', 'TEMPORAL_TASK_QUEUE', 'DEV_SERVER_IP', 'DEV_SERVER_HTTP_PORT']);

/**
 * Checks the configuration as every jobctl command does (a bad setting is exit 2 naming it), but
 * only when a setting is given that the HTTP reads do not check themselves: with none set, there is
 * nothing to check, and the configuration's zod schemas stay unloaded.
 */
function checkConfiguration(env: NodeJS.ProcessEnv): void {
  if (!configEnvNames.some((name) => !checkedHere.has(name) && set(env[name]))) return;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('../../shared/config') as typeof import('../../shared/config')).loadConfig({}, env);
}

/** The deployment's task queue, as the configuration reads it (TEMPORAL_TASK_QUEUE, unset or empty: the default). */
export function httpTaskQueue(env: NodeJS.ProcessEnv = process.env): string {
  return set(env.TEMPORAL_TASK_QUEUE) ? env.TEMPORAL_TASK_QUEUE : defaultTaskQueue;
}

/**
 * Where to read over HTTP, or `undefined` to read over gRPC: TEMPORAL_HTTP_ADDRESS, else the
 * embedded dev server's HTTP port when TEMPORAL_ADDRESS is unset (and DEV_SERVER_PORT is unset
 * too, or DEV_SERVER_HTTP_PORT is set beside it). A setting that is not well
 * formed sends the read to gRPC too, where the configuration's own checks name it.
 */
export function httpReadTarget(env: NodeJS.ProcessEnv = process.env): { address: string; namespace: string } | undefined {
  if (grpcOnly.some((name) => set(env[name])) || tracingConfigured(env)) return undefined;
  const namespace = set(env.TEMPORAL_NAMESPACE) ? env.TEMPORAL_NAMESPACE : 'default';
  // The dev server's HTTP port is taken for the same server's only when both ports are the defaults
  // or both are given: with DEV_SERVER_PORT alone set, the default 7243 may be another server's.
  const address = set(env.TEMPORAL_HTTP_ADDRESS)
    ? env.TEMPORAL_HTTP_ADDRESS
    : set(env.TEMPORAL_ADDRESS) || (set(env.DEV_SERVER_PORT) && !set(env.DEV_SERVER_HTTP_PORT))
      ? undefined
      : `${set(env.DEV_SERVER_IP) ? env.DEV_SERVER_IP : '127.0.0.1'}:${set(env.DEV_SERVER_HTTP_PORT) ? env.DEV_SERVER_HTTP_PORT : '7243'}`;
  return address !== undefined && isHttpAddress(address) ? { address, namespace } : undefined;
}

/**
 * Runs `read` over the HTTP API when {@link httpReadTarget} allows it; `undefined` when it does
 * not, or when nothing usable answers there (the caller then reads over gRPC). Errors of the read
 * itself (an unknown job) are thrown as they are.
 */
export async function readOverHttp<T>(read: (reader: HttpJobReader, api: HttpApi) => Promise<T>, catalog?: Pick<Catalog, 'byWorkflowType'>, env: NodeJS.ProcessEnv = process.env): Promise<T | undefined> {
  const target = httpReadTarget(env);
  if (!target) return undefined;
  checkConfiguration(env);
  const api = new HttpApi(target.address, target.namespace);
  try {
    return await read(new HttpJobReader(api, { payloadCodecs: [new KeylessCodec()], payloadConverter: defaultPayloadConverter }, catalog), api);
  } catch (err) {
    if (err instanceof HttpApiUnavailable) return undefined;
    throw err;
  } finally {
    api.close();
  }
}
