// The only workflowsPath. Every exported function is a workflow type: a stored contract, never renamed.
export { sendEmailWorkflow } from './send-email';
