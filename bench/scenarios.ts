import { Client, Connection } from '@temporalio/client';
import { JobClient } from '../src/client/job-client';
import type { ServerKind } from './servers';
import type { WorkerKind } from './workers';
import { catalog } from '../src/jobs/catalog';
import { catalog as activityCatalog } from './activity/catalog';
import { benchTracer } from './traced-client';

/** The scenarios `npm run bench` knows, in the order it interleaves them. */
export const scenarioNames = ['ceiling', 'baseline', 'ours', 'ours-failures', 'activity', 'ours-activity', 'ours-eager', 'ours-traced', 'ours-before', 'ours-activity-before'] as const;

/** The scenarios a plain `npm run bench` runs; `ours-eager`, `ours-traced`, `ours-before` and `ours-activity-before` (with `--before`) are asked for by name. */
export const defaultScenarios: readonly ScenarioName[] = ['ceiling', 'baseline', 'ours', 'ours-failures', 'activity', 'ours-activity'];

/** A scenario's name. */
export type ScenarioName = (typeof scenarioNames)[number];

/** Starts job number `index` under workflow ID `id`. */
export type Enqueue = (id: string, index: number) => Promise<void>;

/** A client connected for one scenario. */
export interface ScenarioClient {
  enqueue: Enqueue;
  close(): Promise<void>;
}

/** One scenario: which server, which worker, and how a job is enqueued. */
export interface Scenario {
  name: ScenarioName;
  /** What it measures, for the report. */
  description: string;
  server: ServerKind;
  worker: WorkerKind;
  /** Whether it traces: the worker and the client export OTLP to a sink the run starts. @defaultValue false */
  traced?: boolean;
  /** Whether its worker is the `--before` checkout's build rather than this one's. @defaultValue false */
  before?: boolean;
  /** Connects the bench's client; undefined when the worker process enqueues the jobs itself. */
  connect?(address: string, taskQueue: string, otlpEndpoint?: string): Promise<ScenarioClient>;
}

/** A plain Temporal client, as the samples write it. */
async function plainClient(address: string, start: (client: Client, id: string) => Promise<unknown>): Promise<ScenarioClient> {
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace: 'default' });
  return { enqueue: async (id) => void (await start(client, id)), close: () => connection.close() };
}

/** Our client: `JobClient.enqueue('noop', …)`, so validation, ID policy, memo and search attribute all apply. */
async function jobClient(address: string, taskQueue: string, payload: (index: number) => { failAttempts?: number }, otlpEndpoint?: string): Promise<ScenarioClient> {
  const tracer = otlpEndpoint ? benchTracer(otlpEndpoint) : undefined;
  const jobs = await JobClient.connect({ catalog, temporalAddress: address, namespace: 'default', taskQueue, tracing: tracer ? { tracer: tracer.tracer } : false });
  return {
    enqueue: async (id, index) => void (await jobs.enqueue('noop', payload(index), { id })),
    close: async () => {
      await tracer?.flush();
      await jobs.close();
    },
  };
}

/** A user-defined job type through our client: `enqueue('greet', …)` on bench/activity's catalog. */
async function activityJobClient(address: string, taskQueue: string): Promise<ScenarioClient> {
  const jobs = await JobClient.connect({ catalog: activityCatalog, temporalAddress: address, namespace: 'default', taskQueue });
  return {
    enqueue: async (id) => void (await jobs.enqueue('greet', { name: 'Temporal' }, { id })),
    close: () => jobs.close(),
  };
}

/** Every scenario, by name. */
export const scenarios: Record<ScenarioName, Scenario> = {
  ceiling: {
    name: 'ceiling',
    description: 'an empty workflow on a fresh server configured as npm start configures it: the most one workflow per job can do there',
    server: 'npm-start',
    worker: 'plain',
    connect: (address, taskQueue) => plainClient(address, (c, id) => c.workflow.start('emptyWorkflow', { taskQueue, workflowId: id })),
  },
  baseline: {
    name: 'baseline',
    description: 'samples-style workflow + regular activity, default worker options, on a stock persistent dev server',
    server: 'stock',
    worker: 'plain',
    connect: (address, taskQueue) => plainClient(address, (c, id) => c.workflow.start('greetWorkflow', { taskQueue, workflowId: id, args: ['Temporal'] })),
  },
  ours: {
    name: 'ours',
    description: 'the noop job through JobClient and the jobs worker, on a fresh server configured as npm start configures it',
    server: 'npm-start',
    worker: 'ours',
    connect: (address, taskQueue) => jobClient(address, taskQueue, () => ({})),
  },
  'ours-failures': {
    name: 'ours-failures',
    description: 'as ours, with every tenth job failing its first attempt (retried after 1 s)',
    server: 'npm-start',
    worker: 'ours',
    connect: (address, taskQueue) => jobClient(address, taskQueue, (index) => (index % 10 === 9 ? { failAttempts: 1 } : {})),
  },
  activity: {
    name: 'activity',
    description: 'samples-style workflow + regular activity, default worker options, on a fresh server configured as npm start configures it',
    server: 'npm-start',
    worker: 'plain',
    connect: (address, taskQueue) => plainClient(address, (c, id) => c.workflow.start('greetWorkflow', { taskQueue, workflowId: id, args: ['Temporal'] })),
  },
  'ours-activity': {
    name: 'ours-activity',
    description: 'a user-defined job type with one regular activity (bench/activity), through JobClient and the library\'s worker, on a server configured as npm start configures it',
    server: 'npm-start',
    worker: 'ours-activity',
    connect: (address, taskQueue) => activityJobClient(address, taskQueue),
  },
  'ours-eager': {
    name: 'ours-eager',
    description: 'as ours, enqueued from the worker process on its connection with eager workflow start (client CPU counted in the worker)',
    server: 'npm-start',
    worker: 'ours-eager',
  },
  'ours-traced': {
    name: 'ours-traced',
    description: 'as ours, with tracing on: the worker and the client export every span over OTLP/HTTP to a receiver in its own process',
    server: 'npm-start',
    worker: 'ours',
    traced: true,
    connect: (address, taskQueue, otlpEndpoint) => jobClient(address, taskQueue, () => ({}), otlpEndpoint),
  },
  'ours-before': {
    name: 'ours-before',
    description: 'as ours, with the worker of another build (--before DIR: a checkout of an earlier commit, built), for a change measured before and after in one invocation',
    server: 'npm-start',
    worker: 'ours',
    before: true,
    connect: (address, taskQueue) => jobClient(address, taskQueue, () => ({})),
  },
  'ours-activity-before': {
    name: 'ours-activity-before',
    description: 'as ours-activity, with the worker of another checkout (--before DIR: its bench/activity worker over its own src), for a change measured before and after in one invocation',
    server: 'npm-start',
    worker: 'ours-activity',
    before: true,
    connect: (address, taskQueue) => activityJobClient(address, taskQueue),
  },
};
