import { isGrpcServiceError, type Client } from '@temporalio/client';
import { keyIdMetadataKey } from '../shared/encryption-codec';
import { checkSearchAttributes, type SearchAttributeCheck, type SearchAttributeSpec } from '../shared/ensure-search-attributes';
import { describeError } from '../shared/errors';
import { searchAttributeFixCommands } from '../shared/missing-search-attribute';
import { customSearchAttributes } from '../shared/search-attributes';
import { optionalTsToMs } from '../shared/sdk-internals';
import { decodePayload } from '../client/decode';
import { checkFlowControl, flowControlFix, flowControlProblems } from '../client/flow-control-check';
import { livePollWindowMs, queuePollers } from '../client/queue-pollers';
import { firstEvent } from '../client/history';
import { jobTypeSearchAttribute } from '../catalog/job-type-attribute';

/** One line of `jobctl doctor`. */
export interface DoctorCheck {
  /** What was checked, e.g. `search attribute JobType`. */
  name: string;
  /** `FAIL`: jobs cannot run until it is fixed. `warn`: they can, but something deserves a look. */
  status: 'ok' | 'warn' | 'FAIL';
  /** What was found. */
  detail: string;
  /** What to do about it, when it is not ok. */
  fix?: string;
}

/** What `jobctl doctor` reports. */
export interface DoctorReport {
  namespace: string;
  /** True when the deployment can run jobs: no check is `FAIL`. */
  ok: boolean;
  checks: DoctorCheck[];
}

/** What {@link runDoctor} checks, besides the client's namespace. */
export interface DoctorInput {
  /** The server's address, for the report. */
  address: string;
  /** The deployment's shared task queue (TEMPORAL_TASK_QUEUE): it runs the dead-letter queues, so a job needs a poller on it. */
  sharedQueue: string;
  /** Every task queue of the deployment's job types; the shared one is checked whether listed or not. */
  taskQueues: readonly string[];
  /** The custom search attributes jobs are started with. @defaultValue {@link customSearchAttributes} */
  attributes?: SearchAttributeSpec;
  /**
   * A poller counts when it polled within this long, in ms: the server lists pollers for minutes
   * after they stop, and a live worker polls again at least every minute; the DLQ's and the
   * breakers' checks use the same window. @defaultValue 75000 (livePollWindowMs)
   */
  pollerFreshMs?: number;
  /**
   * What flow control the catalog declares: the server is checked for what it needs (fairness, the
   * new matcher, one partition; see flow-control-check.ts). Priorities are given at enqueue, so
   * they are always checked. @defaultValue neither fairness nor rates per key
   */
  flowControl?: { fairness?: boolean; ratePerKey?: boolean };
}

/** gRPC NOT_FOUND: the namespace does not exist. */
const GRPC_NOT_FOUND = 5;

/** Builds a report from its checks: ok unless one is `FAIL`. */
export function doctorReport(namespace: string, checks: DoctorCheck[]): DoctorReport {
  return { namespace, ok: !checks.some((c) => c.status === 'FAIL'), checks };
}

/**
 * Checks that a deployment can run jobs: the server answers (and its version), the namespace
 * exists (and its retention), the custom search attributes are registered, the task queues have
 * live pollers, and the newest job's payload decodes with the client's data converter (its keys).
 * Read-only: it changes nothing on the server.
 */
export async function runDoctor(client: Client, input: DoctorInput): Promise<DoctorReport> {
  const namespace = client.options.namespace;
  const checks: DoctorCheck[] = [];
  try {
    const { serverVersion } = await client.workflowService.getSystemInfo({});
    checks.push({ name: 'server', status: 'ok', detail: `${input.address} answers; ${serverVersion ? `Temporal ${serverVersion}` : 'it does not report its version'}` });
  } catch (err) {
    checks.push({ name: 'server', status: 'FAIL', detail: `${input.address} does not answer: ${describeError(err)}`, fix: 'check TEMPORAL_ADDRESS (and TEMPORAL_TLS / TEMPORAL_API_KEY)' });
    return doctorReport(namespace, checks);
  }
  const namespaceCheck = await checkNamespace(client, namespace);
  checks.push(namespaceCheck);
  if (namespaceCheck.status === 'FAIL') return doctorReport(namespace, checks);

  const attributes = input.attributes ?? customSearchAttributes;
  let attributeChecks: SearchAttributeCheck[] = [];
  try {
    attributeChecks = await checkSearchAttributes(client.connection, namespace, attributes);
  } catch (err) {
    checks.push({ name: 'search attributes', status: 'FAIL', detail: `cannot be read: ${describeError(err)}` });
  }
  for (const a of attributeChecks) {
    const name = `search attribute ${a.name}`;
    const fix = searchAttributeFixCommands(namespace, a.name, a.type);
    if (a.status === 'present') checks.push({ name, status: 'ok', detail: `registered${a.via === 'probe' ? ` (its type unchecked: the server refuses ListSearchAttributes here)` : ` as ${a.type}`}` });
    else if (a.status === 'missing') checks.push({ name, status: 'FAIL', detail: `not registered on namespace "${namespace}": every enqueue fails`, fix: `start a worker (it registers it where it may), or run:\n  ${fix.temporal}\non Temporal Cloud:\n  ${fix.tcld}` });
    else checks.push({ name, status: 'FAIL', detail: `registered as ${a.registeredAs}, but jobs need ${a.type}`, fix: `remove it (temporal operator search-attribute remove --namespace ${namespace} --name ${a.name}), then:\n  ${fix.temporal}` });
  }

  const freshMs = input.pollerFreshMs ?? livePollWindowMs;
  const taskQueues = [...new Set([input.sharedQueue, ...input.taskQueues])];
  // The queues of their own first: whether their workers live decides the shared queue's advice.
  const own = taskQueues.filter((q) => q !== input.sharedQueue);
  const ownChecks = await Promise.all(own.map((q) => orUnchecked(`task queue ${q}`, 'warn', (name) => checkPollers(client, name, q, { freshMs }))));
  const polledElsewhere = own.filter((_, i) => ownChecks[i]!.status === 'ok');
  checks.push(await orUnchecked(`task queue ${input.sharedQueue} (shared)`, 'FAIL', (name) => checkPollers(client, name, input.sharedQueue, { freshMs, shared: { polledElsewhere } })), ...ownChecks);

  const jobTypePresent = attributeChecks.some((a) => a.name === jobTypeSearchAttribute.name && a.status === 'present');
  checks.push(
    jobTypePresent
      ? await orUnchecked('encryption keys', 'warn', (name) => checkNewestJob(client, name, taskQueues))
      : { name: 'encryption keys', status: 'warn', detail: `not checked: without the ${jobTypeSearchAttribute.name} search attribute no job can have started` },
  );
  checks.push(await orUnchecked('flow control', 'warn', (name) => checkFlowControlSupport(client, name, input.sharedQueue, input.flowControl ?? {})));
  return doctorReport(namespace, checks);
}

/** Whether the server does what the declared fairness, rates per key and priorities need. */
async function checkFlowControlSupport(client: Client, name: string, taskQueue: string, uses: { fairness?: boolean; ratePerKey?: boolean }): Promise<DoctorCheck> {
  const support = await checkFlowControl(client, taskQueue);
  const problems = flowControlProblems(support, { ...uses, priority: true });
  const seen = `fairness ${support.fairness}, priority order ${support.priority}, ${support.partitions} partition(s)`;
  if (problems.length === 0) return { name, status: 'ok', detail: `${seen}: fairness keys, weights, priorities and rates per key hold` };
  return { name, status: 'warn', detail: `${seen}: ${problems.join('; ')}`, fix: flowControlFix() };
}

/** A check's result, or `status` saying why it could not be made (e.g. a call this connection may not make). */
async function orUnchecked(name: string, status: DoctorCheck['status'], check: (name: string) => Promise<DoctorCheck>): Promise<DoctorCheck> {
  try {
    return await check(name);
  } catch (err) {
    return { name, status, detail: `could not be checked: ${describeError(err)}` };
  }
}

async function checkNamespace(client: Client, namespace: string): Promise<DoctorCheck> {
  const name = `namespace ${namespace}`;
  try {
    const described = await client.workflowService.describeNamespace({ namespace });
    const retentionMs = optionalTsToMs(described.config?.workflowExecutionRetentionTtl);
    return { name, status: 'ok', detail: `exists; retention ${retentionMs === undefined ? 'not reported' : formatDuration(retentionMs)} (how long finished jobs, and their IDs' idempotency, are kept)` };
  } catch (err) {
    if (isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND) {
      return { name, status: 'FAIL', detail: 'does not exist', fix: `create it (temporal operator namespace create --namespace ${namespace}), or set TEMPORAL_NAMESPACE to one that exists` };
    }
    return { name, status: 'FAIL', detail: `cannot be described: ${describeError(err)}` };
  }
}

/** How {@link checkPollers} judges a queue; `shared` for the shared queue, with the queues of their own that workers poll. */
interface PollerCheck {
  freshMs: number;
  shared?: { polledElsewhere: string[] };
}

/** The pollers of both sides of a task queue, on any partition, that polled within `freshMs`, by identity. */
async function checkPollers(client: Client, name: string, taskQueue: string, { freshMs, shared }: PollerCheck): Promise<DoctorCheck> {
  const lastPoll = new Map<string, number>();
  for (const side of ['workflow', 'activity'] as const) {
    for (const [identity, at] of await queuePollers(client, taskQueue, side)) lastPoll.set(identity, Math.max(at, lastPoll.get(identity) ?? 0));
  }
  const now = Date.now();
  const live = [...lastPoll.values()].filter((at) => now - at <= freshMs);
  if (live.length > 0) return { name, status: 'ok', detail: `${live.length} poller(s), the latest ${formatDuration(Math.max(0, now - Math.max(...live)))} ago` };
  const seen = lastPoll.size > 0 ? `; the last one polled ${formatDuration(now - Math.max(...lastPoll.values()))} ago` : '';
  const fix = 'start a worker with the same TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and TEMPORAL_TASK_QUEUE (runWorker over your worker definition; in the durable-jobs repository, npm run worker)';
  if (!shared) return { name, status: 'warn', detail: `no worker polled it in the last ${formatDuration(freshMs)}${seen}: jobs of the types on it wait`, fix };
  const detail = `no worker polled it in the last ${formatDuration(freshMs)}${seen}: its jobs, the dead-letter queues, the debounce and dedupe windows and the per-key limiter wait`;
  if (shared.polledElsewhere.length === 0) return { name, status: 'FAIL', detail, fix };
  // Workers run, but none on this queue: one limited by WORKER_JOB_TYPES, or from before 0.3 (which left it unpolled when every type had a queue of its own).
  const elsewhere = `workers poll ${shared.polledElsewhere.join(', ')}, but none this queue`;
  return {
    name,
    status: 'FAIL',
    detail: `${detail} (${elsewhere})`,
    fix: 'start a worker whose WORKER_JOB_TYPES (or --types) includes a type on this queue, or none at all: such a worker polls it, whatever queues the types have (a worker of durable-jobs 0.2 polled it only for a type on it: upgrade it)',
  };
}

/** Decodes the start input of the deployment's newest job with the client's converter: are the keys that encrypted it configured here? */
async function checkNewestJob(client: Client, name: string, taskQueues: readonly string[]): Promise<DoctorCheck> {
  const queues = taskQueues.map((q) => `'${q.replace(/'/g, "\\'")}'`).join(', ');
  const { executions } = await client.workflowService.listWorkflowExecutions({
    namespace: client.options.namespace,
    pageSize: 1,
    query: `${jobTypeSearchAttribute.name} IS NOT NULL AND TaskQueue IN (${queues})`,
  });
  const newest = executions?.[0]?.execution;
  if (!newest?.workflowId || !newest.runId) return { name, status: 'ok', detail: 'no jobs yet, so nothing to decode' };
  const event = await firstEvent(client, newest.workflowId, newest.runId);
  const payload = event?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  if (!payload) return { name, status: 'ok', detail: `the newest job (${newest.workflowId}) has no input to decode` };
  const keyBytes = payload.metadata?.[keyIdMetadataKey];
  const keyId = keyBytes ? Buffer.from(keyBytes).toString('utf8') : undefined;
  try {
    await decodePayload(client, payload);
    return { name, status: 'ok', detail: `the newest job (${newest.workflowId}) decodes${keyId ? ` (encrypted with key "${keyId}")` : ' (not encrypted)'}` };
  } catch (err) {
    // A codec error names the key ID and where keys are configured; anything else is reported as is.
    return { name, status: 'warn', detail: `the newest job (${newest.workflowId}) does not decode here: ${describeError(err)}` };
  }
}

/** `90061000` → `1d 1h 1m`; under a minute, seconds. */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 1000)}s`;
  const units: [string, number][] = [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000]];
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of units) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * size;
  }
  return parts.join(' ');
}
