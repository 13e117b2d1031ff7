// The public API: a typed client for enqueueing jobs and reading them back.
export { JobClient, type EnqueueOptions, type EnqueueResult } from './job-client';
export { JobSchedules, type CreateScheduleOptions, type ScheduleSummary } from './schedules';
export type { JobRecord, JobStatus, JobError } from './job-record';
export { registry, jobTypes, type JobType, type JobPayload, type JobPayloadInput } from '../jobs/registry';
export * from '../shared/errors';
