// What a preset says of the outside service its steps call (`dependency: { name: 'smtp' }`), and
// the names the breaker of that dependency is kept under. Workflow-safe, plain data. The names here
// are stored on the server (task queues, workflow IDs, memos): never rename them in place.
import type { Duration } from '@temporalio/common';

/**
 * The circuit breaker of a dependency: when `failures` attempts against it fail within `window`
 * (failures it counts: see {@link JobDependency.countErrorTypes}), it opens for every worker. While
 * open no attempt against it starts, so none uses up a retry; after `coolDown` one probe attempt
 * runs: its success closes the breaker, its failure opens it again for twice as long (at most
 * `maxCoolDown`).
 */
export interface BreakerOptions {
  /** Counted failures within {@link window} that open the breaker. @defaultValue 5 */
  failures?: number;
  /** How far back counted failures are added up. @defaultValue '30s' */
  window?: Duration;
  /** How long the breaker stays open before its first probe. @defaultValue '10s' */
  coolDown?: Duration;
  /** The longest cool-down, after probes that failed one after another. @defaultValue '5m' */
  maxCoolDown?: Duration;
}

/**
 * An outside service that steps call: a mail relay, a payment provider, a team's own API. Steps of
 * every job type whose preset names it run on one task queue of its own, and share one breaker.
 */
export interface JobDependency {
  /** Its name, e.g. `smtp` or `payments-provider`: letters, digits, `-` and `_`. A stored contract. */
  name: string;
  /** Attempts against it one worker runs at once. @defaultValue 100 (the Temporal SDK's default) */
  concurrency?: number;
  /** Most attempts per second against it over all workers, also after its breaker closes. @defaultValue unlimited */
  rate?: number;
  /**
   * The error types that count toward opening the breaker. @defaultValue every retryable failure
   * (never a non-retryable one, which is the job's own business error, nor a cancellation or a
   * worker's shutdown)
   */
  countErrorTypes?: readonly string[];
  /** The breaker's thresholds. @defaultValue see {@link BreakerOptions} */
  breaker?: BreakerOptions;
}

/** Breaker settings with their defaults applied, in ms. */
export interface BreakerSettings {
  failures: number;
  windowMs: number;
  coolDownMs: number;
  maxCoolDownMs: number;
  /** Most attempts per second once closed. @defaultValue unlimited */
  rate?: number;
  countErrorTypes?: readonly string[];
}

export const defaultBreaker = { failures: 5, window: '30s', coolDown: '10s', maxCoolDown: '5m' } as const;

/** The pattern of a dependency's name. */
export const dependencyNamePattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/;

/** The task queue the steps against a dependency run on, in a deployment (its shared task queue). */
export function dependencyQueue(sharedQueue: string, name: string): string {
  return `${sharedQueue}:dependency:${name}`;
}

/** The workflow ID of a dependency's breaker in a deployment. */
export function breakerId(sharedQueue: string, name: string): string {
  return `jobs-breaker:${sharedQueue}:${name}`;
}

/** Workflow type of a breaker. A stored contract. */
export const breakerWorkflowType = 'dependencyBreakerWorkflow';

/** Memo key of a breaker's {@link BreakerView}, upserted at each change of state. A stored contract. */
export const breakerMemoKey = 'breaker';

/** Update names of a breaker. Stored contracts. */
export const breakerUpdateNames = { report: 'breakerReport', force: 'breakerForce', admit: 'breakerAdmit' } as const;

/** Query name of a breaker's view. A stored contract. */
export const breakerViewQueryName = 'breakerView';

/** The deployment's shared queue, from the task queue a job of this definition runs on. */
export function sharedQueueOf(jobQueue: string, queueName: string | undefined): string {
  const suffix = queueName === undefined ? undefined : `:${queueName}`;
  return suffix && jobQueue.endsWith(suffix) ? jobQueue.slice(0, -suffix.length) : jobQueue;
}
