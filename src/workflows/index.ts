// The only workflowsPath: the built-in job types' workflows (the worker adds the library's own). Every
// exported function is a workflow type: a stored contract, never renamed.
export { sendEmailWorkflow } from './send-email';
export { processPaymentWorkflow } from './process-payment';
export { generateReportWorkflow } from './generate-report';
export { syncDataWorkflow } from './sync-data';
export { noopWorkflow } from './noop';
