import type { Tracer } from '@opentelemetry/api';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import { loadPart } from '../shared/optional-packages';
import { tracerProviderRegistered, tracingConfigured } from '../shared/tracing-env';

/** OpenTelemetry tracing of a `JobClient.connect`ed client's calls (see docs/guide/tracing.md). */
export interface JobClientTracingOptions {
  /** The tracer of the client's spans. @defaultValue the global tracer provider's (the application's own OpenTelemetry SDK) */
  tracer?: Tracer;
  /** Client interceptors to install instead of the Temporal SDK's OpenTelemetry one (a team's own). @defaultValue the SDK's `OpenTelemetryWorkflowClientInterceptor` */
  interceptors?: WorkflowClientInterceptor[];
}

/**
 * The client interceptors that trace a connected client's calls, or none: tracing off (`false`,
 * or, by default, neither an OTLP endpoint configured nor a tracer provider registered by the
 * application's own OpenTelemetry SDK) loads no OpenTelemetry module.
 */
export function clientTracingInterceptors(tracing: boolean | JobClientTracingOptions | undefined): WorkflowClientInterceptor[] | undefined {
  const on = tracing === undefined ? tracingConfigured() || tracerProviderRegistered() : tracing !== false;
  if (!on) return undefined;
  const options = typeof tracing === 'object' ? tracing : {};
  if (options.interceptors) return options.interceptors;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when tracing is on
  const { OpenTelemetryWorkflowClientInterceptor } = loadPart('clientTracing', () => require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry'));
  return [new OpenTelemetryWorkflowClientInterceptor(options.tracer ? { tracer: options.tracer } : {})];
}
