// The public API: a typed client for enqueueing jobs and reading them back.
export { JobClient, type EnqueueOptions, type EnqueueResult } from './job-client';
export { JobSchedules, type CreateScheduleOptions, type ScheduleSummary } from './schedules';
export type { JobRecord, JobStatus, JobError } from './job-record';
export { registry, jobTypes, type JobType } from '../jobs/registry';
export { payloadSchemas, type JobPayload, type JobPayloadInput } from '../jobs/payloads';
export * from '../shared/errors';
