// Bundled only by a worker that traces, after the SDK's OpenTelemetry workflow interceptors: a
// workflow's log lines (job:start, job:failed, the saga's) name the span they were written under,
// as activity lines do. Reads the context only: no command, so histories are unchanged.
import { trace } from '@opentelemetry/api';
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';

/** Registered through `workflowInterceptorModules` when tracing is on. */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [
    {
      getLogAttributes(input, next) {
        const span = trace.getActiveSpan();
        if (!span) return next(input);
        const { traceId, spanId } = span.spanContext();
        return next({ trace_id: traceId, span_id: spanId, ...input });
      },
    },
  ],
});
