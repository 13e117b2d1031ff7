// What the JobClient takes: its construction and connection options, and those of an enqueue.
import type { WorkflowHandle } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import type { Catalog, PayloadSchemas } from '../catalog/catalog';
import type { ConfigOverrides } from '../shared/config';
import type { DebounceOptions, DedupeOptions } from '../catalog/window-options';
import type { JobClientTracingOptions } from './tracing';

/** Options of {@link JobClient.enqueue}. */
export interface EnqueueOptions {
  /**
   * The job ID, which becomes the workflow ID. Enqueueing an ID that already exists with the same
   * payload starts nothing and returns the existing job; with a different payload it throws
   * {@link IdConflictError}. @defaultValue the job type's idempotency key, else `<type>-<random UUID>`
   */
  id?: string;
  /** Wait this long before the first attempt, e.g. `'10m'`. @defaultValue no delay */
  delay?: Duration;
  /**
   * 1 (highest) to 5 (lowest): when jobs wait for worker slots, those with a lower number start
   * first (Temporal's priority key; the job's activities inherit it). @defaultValue 3
   */
  priority?: number;
  /**
   * The job's fairness key, e.g. the tenant: while jobs wait for worker slots, Temporal hands them
   * out round-robin over the keys, so one key's backlog does not hold back the others. 1 to 64 bytes.
   * @defaultValue what the job type's `fairness` derives from the payload, else none (the empty key)
   */
  fairnessKey?: string;
  /**
   * The fairness key's weight, 0.001 to 1000: a key of weight 3 gets three tasks for each one of a
   * key of weight 1. Needs a fairness key (this enqueue's or the type's). @defaultValue the type's, else 1
   */
  fairnessWeight?: number;
  /**
   * Collapse enqueues of this key that come within `delay` of each other into one job, which
   * starts `delay` after the last of them (never later than `maxDelay` after the first) with the
   * last payload, or the payloads folded by the type's `debounce.merge`. The result's `id` is the
   * job's (`<type>:debounce:<key>:<window>`); it exists once the window closes. Excludes `id`,
   * `delay` and `dedupe`. See docs/guarantees.md. @defaultValue no debounce
   */
  debounce?: DebounceOptions;
  /**
   * A second enqueue of this key within `ttl` of the first returns the first's job
   * (`existed: true`), even once it has finished; after `ttl` the key runs a new job. The job ID is
   * `<type>:dedupe:<key>:<uuid>`. Excludes `id` and `debounce`. See docs/guarantees.md.
   * @defaultValue no dedupe window
   */
  dedupe?: DedupeOptions;
}

/** What {@link JobClient.enqueue} did. */
export interface EnqueueResult {
  /** The job ID. */
  id: string;
  /** True when a job with this ID and payload already existed, so nothing new was started. */
  existed: boolean;
  /** Handle on the job's workflow, e.g. for `result()`. */
  handle: WorkflowHandle;
}

/** Options of a {@link JobClient} built on an existing Temporal client. */
export interface JobClientOptions<S extends PayloadSchemas = PayloadSchemas> {
  /**
   * The job types (`defineCatalog`): what `enqueue`, `schedules.create` and a patched redrive
   * validate against, and what types their payloads. Reading jobs back (`get`, `list`, `cancel`,
   * `result`, the DLQ's list, show and discard) needs none. @defaultValue none
   */
  catalog?: Catalog<S>;
  /**
   * Request eager workflow start: the server hands a new job's first workflow task back in the
   * start response to a worker of this process, saving a task-queue round trip (see
   * docs/performance.md). Only for a client built on the worker's `NativeConnection`, e.g. a job
   * that enqueues follow-up jobs or an app that embeds its worker. @defaultValue false
   */
  eagerStart?: boolean;
}


/** What {@link JobClient.connect} takes: the catalog and client options, and any setting to override the environment's. */
export type JobClientConnectOptions<S extends PayloadSchemas = PayloadSchemas> = ConfigOverrides &
  JobClientOptions<S> & {
    /**
     * Trace enqueues and the other calls: the caller's active span becomes the parent of the job's
     * start, and the job's trace continues in the worker. `false` installs nothing. A client built
     * with `new JobClient(temporalClient)` takes the interceptors of that Temporal client instead.
     * @defaultValue on when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, or when the process has registered a global tracer provider (its own OpenTelemetry SDK, started before connect), else off
     */
    tracing?: boolean | JobClientTracingOptions;
  };
