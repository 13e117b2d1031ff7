// The SDK client internals this package uses, kept apart from src/shared/sdk-internals.ts because
// workflow code imports that one and must never load the client. `executionInfoFromRaw` is how the
// SDK's own `workflow.list` turns a visibility row into a WorkflowExecutionInfo (memo through the
// codecs, search attributes typed). A paged list that hands Temporal's page token to its caller
// must call `listWorkflowExecutions` itself, and the SDK exports no public decoder for its rows (1.24).
export { executionInfoFromRaw } from '@temporalio/client/lib/helpers';
