// The names under which a job reports its state, apart from job-state.ts so that a reader of jobs
// (jobctl's HTTP reads) names them without loading the workflow SDK. Stored contracts.

/** The query every job workflow answers with its `JobState`. */
export const jobStateQueryName = 'jobState';

/** Memo key under which a job leaves its final `JobState` when it closes. */
export const jobStateMemoKey = 'jobState';
