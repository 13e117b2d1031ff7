import type { JobDefinition } from './define-job';

/** Activity slots per worker on a queue whose job types declare none: the Temporal SDK's default. */
export const defaultConcurrency = 100;

/** One task queue a worker polls, and the job types that are started on it. */
export interface QueuePlan {
  /** The task queue's full name. */
  taskQueue: string;
  /** Whether this is the deployment's shared queue (which also runs the dead-letter queues). */
  shared: boolean;
  /** Job types started on this queue. */
  types: string[];
  /** Activity slots per worker. @defaultValue {@link defaultConcurrency} */
  concurrency: number;
  /** Activity attempts per second over all workers of the queue. @defaultValue unlimited */
  rateLimit?: number;
  /** Activity attempts per second per fairness key over all workers (`limits.ratePerKey`), set on the server. @defaultValue unlimited */
  ratePerKey?: number;
}

/**
 * The task queue a job type's jobs are started on: the shared queue, or `<shared>:<name>` for a
 * type that declares a queue of its own.
 */
export function taskQueueFor(sharedQueue: string, definition: Pick<JobDefinition, 'queue'>): string {
  return definition.queue ? `${sharedQueue}:${definition.queue.name}` : sharedQueue;
}

/**
 * The queues that serve the given job types, with their limits, and always the shared queue: the
 * DLQs, the debounce and dedupe windows and the per-key limiter run there whatever queue a job is
 * on (with no type of its own, its plan's `types` is empty). Types naming the same queue share it,
 * and must then declare the same limits. The shared queue takes no limits from definitions: its
 * types would throttle one another.
 */
export function planQueues(sharedQueue: string, definitions: readonly JobDefinition[]): QueuePlan[] {
  const plans = new Map<string, QueuePlan>();
  for (const d of definitions) {
    const taskQueue = taskQueueFor(sharedQueue, d);
    const plan = plans.get(taskQueue);
    const concurrency = d.queue?.concurrency ?? defaultConcurrency;
    const rateLimit = d.queue?.rateLimit;
    const ratePerKey = d.queue ? d.limits?.ratePerKey : undefined;
    if (!plan) {
      plans.set(taskQueue, { taskQueue, shared: d.queue === undefined, types: [d.type], concurrency, rateLimit, ...(ratePerKey === undefined ? {} : { ratePerKey }) });
      continue;
    }
    if (plan.concurrency !== concurrency || plan.rateLimit !== rateLimit || plan.ratePerKey !== ratePerKey) {
      throw new TypeError(`job types ${plan.types.join(', ')} and ${d.type} share task queue ${taskQueue} but declare different limits`);
    }
    plan.types.push(d.type);
  }
  if (!plans.has(sharedQueue)) plans.set(sharedQueue, { taskQueue: sharedQueue, shared: true, types: [], concurrency: defaultConcurrency });
  return [...plans.values()];
}
