// The worker's OpenTelemetry set-up, loaded only when tracing is configured (tracingConfigured()):
// the Node SDK with OTLP export and the instrumentations of what activities talk to, and the
// Temporal SDK's own interceptors for client, workflow and activity spans.
import * as otelApi from '@opentelemetry/api';
import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import { makeWorkflowExporter, OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor, OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import type { ActivityInterceptorsFactory, WorkerOptions } from '@temporalio/worker';
import type { DeadLetterTracing } from '../activity-kit/dead-letter';
import type { Catalog } from '../catalog/catalog';
import { setGlobalErrorHandler } from '@opentelemetry/core';
import { Runtime } from '@temporalio/worker';
import { redact, secretsFromEnv } from '../shared/redact';
import { enableTracedSpans } from '../shared/traced';
import { tracingTarget } from '../shared/tracing-env';
import type { TraceCarrier } from '../shared/tracing-env';
import { traceAttributeInterceptors } from './trace-attributes';
import { tracingResource, redactingSpanProcessor } from './trace-export';

/** The tracer name of durable-jobs' own spans (redrive, ledger transaction, SMTP conversation). */
export const tracerName = 'durable-jobs';

/** What a worker adds to its workers, client and DLQ activities when it traces. */
export interface WorkerTracing {
  /** The workflow interceptor modules of the Temporal SDK's OpenTelemetry integration and of the trace IDs on log lines, bundled with the workflows. */
  workflowInterceptorModules: string[];
  /** The sink through which workflow code's spans leave the sandbox. */
  sinks: NonNullable<WorkerOptions['sinks']>;
  /** Client interceptors of the worker's own client (DLQ hand-offs, redrives). */
  clientInterceptors: WorkflowClientInterceptor[];
  /** Activity spans, outermost first, then the job's attributes on them. */
  activityInterceptors(catalog: Pick<Catalog, 'byWorkflowType'>): ActivityInterceptorsFactory[];
  /** The DLQ's part: an entry keeps the failed run's trace context, a redrive is linked to it. */
  deadLetters: DeadLetterTracing;
  /** Exports the spans still buffered (the SDK keeps running for the process's other workers). */
  flush(): Promise<void>;
}

let started: WorkerTracing | undefined;

/**
 * Starts the OpenTelemetry Node SDK once per process (a second call returns the first's), with
 * the exporter the `OTEL_EXPORTER_OTLP_*` variables describe and every span's attributes redacted.
 * The pg and undici (fetch) instrumentations see the modules required after this call.
 */
export function startTracing(): WorkerTracing {
  if (started) return started;
  const resource = tracingResource();
  const spanProcessor = redactingSpanProcessor();
  const sdk = new NodeSDK({
    // The resource is the OTEL_* variables' only: the process detector would send the command line.
    autoDetectResources: false,
    resource,
    spanProcessors: [spanProcessor],
    // Traces only: the worker's metrics and logs have their own outputs.
    logRecordProcessors: [],
    instrumentations: [new PgInstrumentation(), new UndiciInstrumentation()],
  });
  sdk.start();
  enableTracedSpans(otelApi);
  reportExportFailures();
  // Spans still buffered leave before the process does; a collector that is down loses them, and
  // must not turn the exit into a crash (the export's rejection would be unhandled).
  process.once('beforeExit', () => void sdk.shutdown().catch(() => undefined));
  const tracer = trace.getTracer(tracerName);
  const options = { tracer: trace.getTracer('@temporalio/interceptors-opentelemetry') };
  started = {
    workflowInterceptorModules: [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'), require.resolve('../workflow-kit/trace-log-attributes')],
    sinks: { exporter: makeWorkflowExporter(spanProcessor, resource) },
    clientInterceptors: [new OpenTelemetryWorkflowClientInterceptor(options)],
    activityInterceptors: (catalog) => [
      (ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx, options), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) }),
      traceAttributeInterceptors(catalog),
    ],
    deadLetters: deadLetterTracing(tracer),
    // Called by a worker's close: a collector that is down must not fail the shutdown.
    flush: () => spanProcessor.forceFlush().catch(() => undefined),
  };
  return started;
}

/** How often a failing export is logged: once a minute says the collector is down without flooding the log. */
const exportFailureLogInterval = 60_000;

/**
 * Logs the OpenTelemetry SDK's errors (a collector that is down or refuses the spans) as a warning,
 * at most once a minute with the failures counted since: spans are lost then, jobs never are.
 */
function reportExportFailures(): void {
  let lastAt = -Infinity;
  let since = 0;
  setGlobalErrorHandler((err) => {
    since++;
    const now = Date.now();
    if (now - lastAt < exportFailureLogInterval) return;
    lastAt = now;
    const message = redact(err instanceof Error ? err.message : String(err), secretsFromEnv());
    Runtime.instance().logger.warn(`tracing:export-failed — spans could not be sent (${tracingTarget() ?? 'no target'}): ${message}; ${since} failure(s) in the last minute, their spans are lost (jobs are not affected)`, { failures: since });
    since = 0;
  });
}

function deadLetterTracing(tracer: Tracer): DeadLetterTracing {
  return {
    capture() {
      const carrier: TraceCarrier = {};
      propagation.inject(context.active(), carrier);
      return carrier.traceparent ? carrier : undefined;
    },
    linkedTo(carrier, attributes, start) {
      const failed = trace.getSpanContext(propagation.extract(context.active(), carrier));
      const links = failed ? [{ context: failed, attributes: { 'job.link': 'dead-lettered run' } }] : [];
      return tracer.startActiveSpan('RedriveJob', { links, attributes }, async (span) => {
        try {
          return await start();
        } catch (err) {
          span.recordException(err as Error);
          throw err;
        } finally {
          span.end();
        }
      });
    },
  };
}
