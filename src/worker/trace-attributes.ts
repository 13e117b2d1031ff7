import { trace } from '@opentelemetry/api';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { errorTypeOf } from '../activity-kit/interceptors';
import type { Catalog } from '../catalog/catalog';

/** The span attributes a person searches a job's trace by. Names are stable: dashboards query them. */
export const jobSpanAttributes = {
  id: 'job.id',
  type: 'job.type',
  attempt: 'job.attempt',
  step: 'job.step',
  errorType: 'job.error_type',
  fairnessKey: 'job.fairness_key',
} as const;

/**
 * Puts the job's ID, type, attempt, step and fairness key on each attempt's span (the SDK's
 * `RunActivity`, which is active here), and the error type when the attempt fails. Identifiers
 * only: never the payload, whose values may be personal or secret.
 */
export function traceAttributeInterceptors(catalog: Pick<Catalog, 'byWorkflowType'>): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: {
      async execute(input, next) {
        const span = trace.getActiveSpan();
        const { info } = ctx;
        // A job's attempts only: the DLQ's, the windows' and the limiters' activities run for no one job.
        const jobType = catalog.byWorkflowType(info.workflowType ?? '')?.type;
        if (!span || !jobType) return next(input);
        span.setAttributes({
          [jobSpanAttributes.id]: info.workflowExecution?.workflowId,
          [jobSpanAttributes.type]: jobType,
          [jobSpanAttributes.attempt]: info.attempt,
          [jobSpanAttributes.step]: info.activityType,
          ...(info.priority?.fairnessKey ? { [jobSpanAttributes.fairnessKey]: info.priority.fairnessKey } : {}),
        });
        try {
          return await next(input);
        } catch (err) {
          span.setAttribute(jobSpanAttributes.errorType, errorTypeOf(err));
          throw err;
        }
      },
    },
  });
}
