/** The WorkflowService calls jobctl makes over Temporal's HTTP API: src/client/http/api-subset.json holds their messages. */
export const httpApiMethods = ['DescribeWorkflowExecution', 'GetWorkflowExecutionHistory', 'GetWorkflowExecutionHistoryReverse', 'QueryWorkflow', 'ListWorkflowExecutions'] as const;
