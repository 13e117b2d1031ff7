import { tracingConfigured, type TraceCarrier } from './tracing-env';

type Api = typeof import('@opentelemetry/api');
let api: Api | null | undefined;

/** The OpenTelemetry API, loaded the first time it is asked for and only when tracing is configured. */
function otel(): Api | null {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- not loaded at all when tracing is off
  if (api === undefined) api = tracingConfigured() ? (require('@opentelemetry/api') as Api) : null;
  return api;
}

/**
 * Runs `work` under a span of durable-jobs' own, for what no instrumentation covers (the ledger
 * transaction, the SMTP conversation). Attributes are identifiers, never payload values. With
 * tracing off it is a plain call: no module is loaded and no span made.
 */
export async function traced<T>(name: string, attributes: Record<string, string | number | boolean>, work: () => Promise<T>): Promise<T> {
  const o = otel();
  if (!o) return work();
  return o.trace.getTracer('durable-jobs').startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work();
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: o.SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** The active span's trace and span IDs, for a log line; none when tracing is off or no span is active. */
export function activeTraceIds(): { trace_id?: string; span_id?: string } {
  const span = otel()?.trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

export type { TraceCarrier };
