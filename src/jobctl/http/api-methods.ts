/** The WorkflowService calls jobctl makes over Temporal's HTTP API: src/jobctl/http/api-subset.json holds their messages. */
export const httpApiMethods = ['DescribeWorkflowExecution', 'GetWorkflowExecutionHistory', 'GetWorkflowExecutionHistoryReverse', 'QueryWorkflow', 'ListWorkflowExecutions'] as const;
