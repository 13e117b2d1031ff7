// The client entry point (`durable-jobs` and `durable-jobs/client`): the typed client for
// enqueueing jobs and reading them back, typed by the catalog it is given, and the library error
// classes its calls throw (src/shared/errors.ts, DeadLetterError, the catalog errors, MissingSearchAttributeError).
export { JobClient, type EnqueueOptions, type EnqueueResult, type JobClientOptions, type JobClientConnectOptions } from './job-client';
export { InvalidItemsError, type EnqueueManyItem, type EnqueueManyOptions, type EnqueueManyOutcome, type EnqueueManyResult } from './enqueue-many';
export type { JobClientTracingOptions } from './tracing';
export { JobSchedules, type CreateScheduleOptions, type ScheduleSummary } from './schedules';
export { DeadLetterQueue, DeadLetterError, type DeadLetterListOptions, type DiscardOptions, type RedriveOptions, type RedriveOutcome } from './dead-letters';
export type { JobRecord, JobStatus, JobError } from './job-record';
// What the DLQ's list, show and groups return, and the test kit's deadLetter: nameable by callers.
export type { AuditRecord, DeadLetterEntry, DeadLetterGroup, DeadLetterStatus } from '../workflow/dead-letter-entries';
export type { JobSummary, ListJobsOptions } from './job-list';
export { prepareJob, type PreparedJob } from '../catalog/prepare-job';
export * from '../catalog';
export * from '../shared/errors';
export { MissingSearchAttributeError } from '../shared/missing-search-attribute';
