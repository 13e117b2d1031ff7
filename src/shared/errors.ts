import { ApplicationFailure, type Duration } from '@temporalio/common';

/**
 * Namespaced error types. They are stored in workflow histories and matched by retry policies
 * (`nonRetryableErrorTypes`), so never rename one in place.
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
  /** No route could provide a Temporal binary. */
  ProvisionFailed: 'jobs:provision-failed',
  /** The native Temporal cluster (`npm run cluster`) could not be set up: a missing part, or a step that failed. */
  ClusterSetup: 'jobs:cluster-setup',
  /** The Temporal server could not be reached. */
  Unreachable: 'jobs:unreachable',
  /** No job with that ID exists. */
  JobNotFound: 'jobs:job-not-found',
  /** The job has already finished. */
  JobClosed: 'jobs:job-closed',
  /** The mail server answered 4xx or could not be reached: retried. */
  SmtpTransient: 'jobs:smtp-transient',
  /** The mail server answered 5xx: a permanent rejection, never retried. */
  SmtpRejected: 'jobs:smtp-rejected',
  /** The mail server refused our login or our sender: a configuration to fix, so retried until it is. */
  SmtpConfig: 'jobs:smtp-config',
  /** The outbox directory cannot be written (permission, read-only, not a directory): never retried. */
  OutboxUnwritable: 'jobs:outbox-unwritable',
  /** A recipient address is malformed or refused as such: never retried. */
  InvalidAddress: 'jobs:invalid-address',
  /** An unclassified error thrown by an activity: retried on the job's schedule. */
  Unexpected: 'jobs:unexpected',
  /** The worker stopped (its shutdown grace time ran out) before the attempt finished: retried, on another worker. */
  WorkerShutdown: 'jobs:worker-shutdown',
  /** A job ID is in use by a job with a different payload. */
  IdConflict: 'jobs:id-conflict',
  /** The from-account's available balance does not cover the payment: never retried. */
  InsufficientFunds: 'jobs:insufficient-funds',
  /** A payment names an account that does not exist: never retried. */
  UnknownAccount: 'jobs:unknown-account',
  /** A payment's currency differs from an account's: never retried. */
  CurrencyMismatch: 'jobs:currency-mismatch',
  /** A payment amount is not a positive integer: never retried. */
  InvalidAmount: 'jobs:invalid-amount',
  /** Another job already owns this payment ID: never retried. */
  DuplicatePayment: 'jobs:duplicate-payment',
  /** A compensating step cannot take effect yet (e.g. the money was spent): retried until it can. */
  CompensationPending: 'jobs:compensation-pending',
  /** The sync source refused the request (a 4xx other than 429): never retried. */
  SyncRejected: 'jobs:sync-rejected',
  /** The sync source is busy or down (429, 5xx, network): retried, after its Retry-After if it sent one. */
  SyncUnavailable: 'jobs:sync-unavailable',
  /** The sync source answered with data that fails its schema: never retried. */
  SyncInvalidData: 'jobs:sync-invalid-data',
  /** A job needs a setting that is missing (e.g. SYNC_SOURCE_URL): retried, so fixing the config resumes the job. */
  MissingConfig: 'jobs:missing-config',
  /** A `noop` job's attempt failed because its payload asked it to (`failAttempts`): retried. */
  InjectedFailure: 'jobs:injected-failure',
  /** The reports directory cannot be written (permission, not a directory, read-only): never retried. */
  ReportFailed: 'jobs:report-failed',
  /** No dead-letter entry has that job ID. */
  DlqEntryNotFound: 'jobs:dlq-entry-not-found',
  /** A schedule with that ID already exists. */
  ScheduleExists: 'jobs:schedule-exists',
  /** No schedule of this deployment has that ID. */
  ScheduleNotFound: 'jobs:schedule-not-found',
  /** A dead-letter operation does not apply to the entry in its current state (e.g. redriving a discarded job). */
  DlqInvalidState: 'jobs:dlq-invalid-state',
  /** A payload is encrypted with a key ID that is not configured (ENCRYPTION_KEYS / ENCRYPTION_KEY_FILE). */
  CodecUnknownKey: 'jobs:codec-unknown-key',
  /** An encrypted payload does not decrypt with its key: wrong key material, or the bytes were altered. */
  CodecDecryptFailed: 'jobs:codec-decrypt-failed',
  /** A custom search attribute jobs need (`JobType`) is not registered on the namespace, or has the wrong type. */
  MissingSearchAttribute: 'jobs:missing-search-attribute',
} as const;

/** One of the {@link ErrorType} strings. */
export type ErrorTypeName = (typeof ErrorType)[keyof typeof ErrorType];

/**
 * A namespaced error type: `<namespace>:<kind>`. The library's own are `jobs:*`; a team's job
 * types declare their own (`acme:card-declined`), which retry presets and the error factories take
 * alike. Stored in histories and matched by retry policies: never rename one in place.
 */
export type NamespacedErrorType = `${string}:${string}`;

/** Base class of every error this package throws outside workflow and activity code. */
export class JobsError extends Error {
  constructor(
    /** The namespaced type, e.g. `jobs:invalid-payload`. */
    readonly type: ErrorTypeName,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${type}: ${message}`, options);
    this.name = new.target.name;
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
      `cannot reach Temporal at ${address}: ${describe(cause)}. Start it with \`npm start\`, or set TEMPORAL_ADDRESS.`,
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

/** Longest path or message of one reported issue, in characters: a caller's 60 KB key is not echoed back whole. */
const maxIssueText = 200;

/** Most issues reported from one parse; the rest are counted. */
const maxIssues = 20;

/** The issues of a failed zod parse, with paths under `root` (e.g. `payload.to`), each bounded in length. */
export function issuesFromZod(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }, root: string): FieldIssue[] {
  const issues = error.issues.slice(0, maxIssues).map((issue) => ({ path: clip([root, ...issue.path.map(String)].join('.')), message: clip(issue.message) }));
  const more = error.issues.length - issues.length;
  return more > 0 ? [...issues, { path: root, message: `and ${more} more issue(s)` }] : issues;
}

function clip(text: string): string {
  return text.length > maxIssueText ? `${text.slice(0, maxIssueText)}… (${text.length} characters)` : text;
}

/** Joins field issues as `path: message; path: message`. */
export function formatIssues(issues: readonly FieldIssue[]): string {
  return issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
}

/** The message of anything thrown. */
export function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A failure that Temporal must not retry, whatever the retry policy says. */
export function nonRetryable(type: NamespacedErrorType, message: string, cause?: unknown): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true, cause: asError(cause) });
}

/** A failure that Temporal retries, optionally after an explicit delay. */
export function retryable(type: NamespacedErrorType, message: string, cause?: unknown, nextRetryDelay?: Duration): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: false, cause: asError(cause), nextRetryDelay });
}

function asError(cause: unknown): Error | undefined {
  if (cause === undefined) return undefined;
  return cause instanceof Error ? cause : new Error(String(cause));
}

/** One provisioning route that was tried, and why it did not work. */
export interface RouteFailure {
  /** The route, e.g. `TEMPORAL_CLI_PATH` or `go install …`. */
  route: string;
  /** Why it failed or was skipped. */
  reason: string;
}

/** No route could provide a Temporal binary; the message lists every route and its reason. */
export class ProvisionError extends JobsError {
  constructor(
    what: string,
    readonly failures: RouteFailure[],
  ) {
    super(
      ErrorType.ProvisionFailed,
      `no route could provide the ${what}:\n${failures.map((f, i) => `  ${i + 1}. ${f.route}: ${f.reason}`).join('\n')}`,
    );
  }
}

/** The native cluster could not be set up: a missing part (PostgreSQL, a binary) or a step that failed. */
export class ClusterSetupError extends JobsError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorType.ClusterSetup, message, options);
  }
}
