// What an enqueue finds at its job ID when the ID is taken: the same job again (idempotent), or a
// conflict. The one check, for every transport's start.
import type { WorkflowExecutionDescription } from '@temporalio/client';
import type { Catalog } from '../catalog/catalog';
import type { PreparedJob } from '../catalog/prepare-job';
import { payloadHashMemoKey } from '../catalog/start-job';
import { IdConflictError } from '../shared/errors';
import { payloadHash } from '../shared/payload-hash';
import { jobTypeOf } from './job-record';

/**
 * Throws {@link IdConflictError} unless the workflow at the job's ID is this job: its type, and its
 * payload (by the hash its start recorded; a job from before the hash is taken as the same).
 */
export function checkSameJob(existing: Pick<WorkflowExecutionDescription, 'type' | 'memo' | 'typedSearchAttributes'>, job: Pick<PreparedJob, 'id' | 'definition' | 'payload'>, catalog?: Pick<Catalog, 'byWorkflowType'>): void {
  if (existing.type !== job.definition.workflowType) throw new IdConflictError(job.id, jobTypeOf(existing, catalog));
  const hash = existing.memo?.[payloadHashMemoKey];
  if (hash !== undefined && hash !== payloadHash(job.payload)) throw new IdConflictError(job.id);
}
