// The client entry point (`durable-jobs`): what a service that enqueues and reads jobs needs. The
// typed client (typed by a catalog from `durable-jobs/catalog`), the DLQ's and schedules' clients,
// and the error classes their calls throw. Job definitions, retry shapes and `ErrorType` are
// workflow-safe and come from `durable-jobs/workflow`. Each name is exported from one entry point
// (test/package/entry-points.test.ts).
export { prepareJob, type PreparedJob } from '../catalog/prepare-job';
export { JobClient, type EnqueueOptions, type EnqueueResult, type JobClientOptions, type JobClientConnectOptions } from './job-client';
export type { OutboxEnqueueResult } from '../outbox/enqueue-in-transaction';
export { InvalidItemsError, type EnqueueManyItem, type EnqueueManyOptions, type EnqueueManyOutcome, type EnqueueManyResult } from './enqueue-many';
export type { JobClientTracingOptions } from './tracing';
export { JobSchedules, type CreateScheduleOptions, type ScheduleSummary } from './schedules';
export { DeadLetterQueue, DeadLetterError, type DeadLetterListOptions, type DiscardOptions, type RedriveOptions, type RedriveOutcome } from './dead-letters';
export type { JobRecord, JobStatus, JobError } from './job-record';
// What the DLQ's list, show and groups return, and the test kit's deadLetter: nameable by callers.
export type { AuditRecord, DeadLetterEntry, DeadLetterStatus } from '../catalog/dead-letter-entry';
export type { DeadLetterGroup } from '../workflow-kit/dead-letter-entries';
export type { JobSummary, ListJobsOptions } from './job-list';
export {
  CodecError, ConfigError, IdConflictError, InvalidOptionError, InvalidPayloadError, JobClosedError, JobNotFoundError, JobNotStartedError,
  JobsError, ScheduleExistsError, ScheduleNotFoundError, UnknownJobTypeError, UnreachableError, type ErrorTypeName, type FieldIssue,
} from '../shared/errors';
export { MissingSearchAttributeError } from '../shared/missing-search-attribute';
