/**
 * The library's own namespaced error types (`jobs:*`). They are stored in workflow histories and
 * matched by retry policies (`nonRetryableErrorTypes`), so never rename one in place. A job type's
 * own error types live next to it, in a namespace of its own (the built-in ones in src/jobs/<type>.ts,
 * `send-email:*` and so on; `test/jobs/catalog.test.ts` holds them to it), provisioning's in
 * src/provision/errors.ts, the native cluster's in src/cluster/errors.ts.
 */
export const ErrorType = {
  /** A payload failed its job type's schema. Never retried. */
  InvalidPayload: 'jobs:invalid-payload',
  /** An enqueue option (job ID, delay) is malformed. */
  InvalidOption: 'jobs:invalid-option',
  /** No job type of that name is registered. */
  UnknownJobType: 'jobs:unknown-job-type',
  /** A catalog of job types is malformed (a duplicate type, a missing schema, …). */
  InvalidCatalog: 'jobs:invalid-catalog',
  /** An operation needs the job types' catalog (to validate a payload), and none was given. */
  NoCatalog: 'jobs:no-catalog',
  /** Configuration failed validation at startup. */
  InvalidConfig: 'jobs:invalid-config',
  /** A part in use needs an optional package that is not installed (the message says how to install it). */
  MissingPackage: 'jobs:missing-package',
  /** The Temporal server could not be reached. */
  Unreachable: 'jobs:unreachable',
  /** No job with that ID exists. */
  JobNotFound: 'jobs:job-not-found',
  /** The job has already finished. */
  JobClosed: 'jobs:job-closed',
  /** The job has an ID but has not started: a debounced job whose window is still open. */
  JobNotStarted: 'jobs:job-not-started',
  /** An unclassified error thrown by an activity: retried on the job's schedule. */
  Unexpected: 'jobs:unexpected',
  /**
   * The jobs database cannot be reached or cannot serve the statement now (connection refused or
   * lost, a restart, a locked SQLite file, a serialization failure or deadlock, too many
   * connections): retried on the step's schedule, after riding out short outages within the attempt.
   */
  DatabaseUnavailable: 'jobs:database-unavailable',
  /** The jobs database refused the login or names no database (a rotated password, DATABASE_URL): retried on the step's schedule, so fixing it saves the jobs. */
  DatabaseConfig: 'jobs:database-config',
  /** The jobs database rejected the statement itself (a constraint violation, a missing table or column): never retried. */
  DatabaseRejected: 'jobs:database-rejected',
  /** A directory an activity writes to has no space left (ENOSPC, EDQUOT): retried on the step's schedule; free space, and the jobs complete. */
  DiskFull: 'jobs:disk-full',
  /**
   * A setting the step needs is missing on the worker that ran it (e.g. SYNC_SOURCE_URL). It costs
   * no attempt: the job waits and tries the step again on a slow schedule (10 s, 30 s, 1 min, 5 min,
   * then every 15 min) for up to 7 days, so setting it and restarting the worker resumes the job.
   */
  MissingConfig: 'jobs:missing-config',
  /** The worker stopped (its shutdown grace time ran out) before the attempt finished: retried, on another worker. */
  WorkerShutdown: 'jobs:worker-shutdown',
  /**
   * The attempt was handed out before its dependency's breaker opened and waited for it to let it
   * begin for as long as its own timeout allowed; it never called the dependency. Retried on the
   * step's schedule (it uses a retry: Temporal counts every attempt), and not counted by the breaker.
   */
  BreakerOpen: 'jobs:breaker-open',
  /** A job ID is in use by a job with a different payload. */
  IdConflict: 'jobs:id-conflict',
  /** No dead-letter entry has that job ID. */
  DlqEntryNotFound: 'jobs:dlq-entry-not-found',
  /** A schedule with that ID already exists. */
  ScheduleExists: 'jobs:schedule-exists',
  /** No schedule of this deployment has that ID. */
  ScheduleNotFound: 'jobs:schedule-not-found',
  /** A dead-letter operation does not apply to the entry in its current state (e.g. redriving a discarded job). */
  DlqInvalidState: 'jobs:dlq-invalid-state',
  /** A DLQ workflow kept refusing a call while it handed over to its next run (retried for about 10 s first): try again. */
  DlqBusy: 'jobs:dlq-busy',
  /** No worker answers on the DLQ's task queue: a redrive or discard needs one, and changed nothing. */
  DlqNoWorker: 'jobs:dlq-no-worker',
  /** No worker polls the shared task queue, which runs the breakers: an order to one changed nothing. */
  BreakerNoWorker: 'jobs:breaker-no-worker',
  /** An order to a breaker was sent while a worker polled the shared queue, and none has polled since: the server holds it and applies it when one polls again. */
  BreakerOrderHeld: 'jobs:breaker-order-held',
  /** A breaker's workflow kept refusing an order (its workflow task failing or timing out) for a minute: nothing was applied. */
  BreakerBusy: 'jobs:breaker-busy',
  /** A payload is encrypted with a key ID that is not configured (ENCRYPTION_KEYS / ENCRYPTION_KEY_FILE). */
  CodecUnknownKey: 'jobs:codec-unknown-key',
  /** An encrypted payload does not decrypt with its key: wrong key material, or the bytes were altered. */
  CodecDecryptFailed: 'jobs:codec-decrypt-failed',
  /** A custom search attribute jobs need (`JobType`) is not registered on the namespace, or has the wrong type. */
  MissingSearchAttribute: 'jobs:missing-search-attribute',
  /** A jobctl command line the user can fix: a bad flag value, malformed JSON, conflicting options (exit 2). */
  Usage: 'jobs:usage',
  /** The job jobctl waited for failed, or did not finish in time; not an input or connection problem (exit 1). */
  JobFailed: 'jobs:job-failed',
  /** The operator interrupted a jobctl command (SIGINT, SIGTERM) and it stopped cleanly: exit 128 + the signal's number (130 for Ctrl-C). */
  Interrupted: 'jobs:interrupted',
} as const;

/** One of the {@link ErrorType} strings. */
export type ErrorTypeName = (typeof ErrorType)[keyof typeof ErrorType];

/**
 * A namespaced error type: `<namespace>:<kind>`. The library's own are `jobs:*`; a team's job
 * types declare their own (`acme:card-declined`), which retry presets and the error factories take
 * alike. Stored in histories and matched by retry policies: never rename one in place.
 */
export type NamespacedErrorType = `${string}:${string}`;

/**
 * Base class of every error this package throws outside workflow and activity code. Its message
 * is `<type>: <detail>`, so a log line or a terminal names the kind of failure.
 */
export class JobsError extends Error {
  /** The message without its type, e.g. for a command line that words its own errors. */
  readonly detail: string;

  constructor(
    /** The namespaced type, e.g. `jobs:invalid-payload`. */
    readonly type: NamespacedErrorType,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`${type}: ${detail}`, options);
    this.name = new.target.name;
    this.detail = detail;
  }
}

/** One field that failed validation. */
export interface FieldIssue {
  /** Dotted path to the field, e.g. `payload.to`; empty for the object itself. */
  path: string;
  /** What is wrong with it. */
  message: string;
}

/** A payload failed validation; nothing was enqueued. */
export class InvalidPayloadError extends JobsError {
  constructor(
    readonly jobType: string,
    readonly issues: FieldIssue[],
  ) {
    super(ErrorType.InvalidPayload, `invalid ${jobType} payload: ${formatIssues(issues)}`);
  }
}

/** An enqueue option is malformed; nothing was enqueued. */
export class InvalidOptionError extends JobsError {
  constructor(readonly issues: FieldIssue[]) {
    super(ErrorType.InvalidOption, `invalid options: ${formatIssues(issues)}`);
  }
}

/** The job type is not in the registry. */
export class UnknownJobTypeError extends JobsError {
  constructor(
    readonly jobType: string,
    known: readonly string[],
  ) {
    super(ErrorType.UnknownJobType, `unknown job type "${jobType}" (known: ${known.join(', ')})`);
  }
}

/** Configuration failed validation; the message names each bad field. */
export class ConfigError extends JobsError {
  constructor(
    readonly issues: FieldIssue[],
    options?: { cause?: unknown },
  ) {
    super(ErrorType.InvalidConfig, `invalid configuration: ${formatIssues(issues)}`, options);
  }
}

/** The Temporal server did not answer. */
export class UnreachableError extends JobsError {
  constructor(address: string, cause: unknown) {
    super(
      ErrorType.Unreachable,
      `cannot reach Temporal at ${address}: ${describe(cause)}. Start a Temporal server (in the durable-jobs repository, \`npm start\` runs one), or set TEMPORAL_ADDRESS to yours.`,
      { cause },
    );
  }
}

/** A job ID is already used by a job with a different payload; nothing was enqueued. */
export class IdConflictError extends JobsError {
  constructor(
    readonly jobId: string,
    /** The type of the job that holds the ID, when it differs from the one enqueued. */
    readonly existingType?: string,
  ) {
    super(
      ErrorType.IdConflict,
      existingType
        ? `job ID "${jobId}" is already used by a ${existingType} job; choose another ID`
        : `job ID "${jobId}" is already used by a job with a different payload; choose another ID, or enqueue the same payload to get the existing job`,
    );
  }
}

/** The job has already finished, so the operation (e.g. cancel) has nothing to act on. */
export class JobClosedError extends JobsError {
  constructor(
    readonly jobId: string,
    /** Its final status, e.g. `completed`. */
    readonly status: string,
  ) {
    super(ErrorType.JobClosed, `job "${jobId}" has already ${status === 'completed' ? 'completed' : `ended (${status})`}; there is nothing to cancel`);
  }
}

/**
 * A debounced job whose window still collects enqueues: it has its ID, but no workflow yet, so
 * there is nothing to cancel. It can be cancelled once its window has closed and it has started.
 */
export class JobNotStartedError extends JobsError {
  constructor(
    readonly jobId: string,
    /** When its window closes if no more enqueues come (ISO 8601), when known. */
    readonly startsAt?: string,
  ) {
    super(ErrorType.JobNotStarted, `job "${jobId}" has not started: its debounce window is still collecting enqueues${startsAt ? ` (it closes at ${startsAt} if no more come)` : ''}; cancel it once it has started`);
  }
}

/** No job has that ID. */
export class JobNotFoundError extends JobsError {
  constructor(readonly jobId: string) {
    super(ErrorType.JobNotFound, `no job with id "${jobId}"`);
  }
}

/** A payload could not be decrypted; the message names the key ID, never key material. */
export class CodecError extends JobsError {
  constructor(type: typeof ErrorType.CodecUnknownKey | typeof ErrorType.CodecDecryptFailed, message: string, options?: { cause?: unknown }) {
    super(type, message, options);
  }
}

/** A schedule with that ID exists already; nothing was created. */
export class ScheduleExistsError extends JobsError {
  constructor(readonly scheduleId: string) {
    super(ErrorType.ScheduleExists, `a schedule with id "${scheduleId}" already exists; choose another ID, or delete it first`);
  }
}

/** No schedule of this deployment (task queue) has that ID. */
export class ScheduleNotFoundError extends JobsError {
  constructor(readonly scheduleId: string) {
    super(ErrorType.ScheduleNotFound, `no schedule with id "${scheduleId}"`);
  }
}

/** Joins field issues as `path: message; path: message`. */
export function formatIssues(issues: readonly FieldIssue[]): string {
  return issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
}

/** The message of anything thrown. */
export function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** @deprecated Since 0.3: {@link describeError} (`describe` shadows the test runner's global); removed in 0.4. */
export const describe = describeError;
