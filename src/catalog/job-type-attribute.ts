import { defineSearchAttributeKey, SearchAttributeType } from '../shared/sdk-internals';

/**
 * The `JobType` search attribute: every job is started with its type in it, so `jobctl list` and the
 * Web UI select jobs by type, and the job's own workflow knows its type from its start alone.
 * Workflow-safe. A stored contract.
 */
export const jobTypeSearchAttribute = defineSearchAttributeKey('JobType', SearchAttributeType.KEYWORD);
