import type { TraceCarrier } from './tracing-env';

type Api = typeof import('@opentelemetry/api');
let api: Api | undefined;

/**
 * Turns durable-jobs' own spans on in this process: called by the worker's `startTracing`, once
 * tracing is configured and started. Before it (and without it: tracing off) `traced` is a plain
 * call and no OpenTelemetry module is loaded. Deciding here rather than by reading the settings
 * at the first call means a process that starts tracing after some work (a test runner, an
 * application that configures it late) still gets the spans.
 */
export function enableTracedSpans(otelApi: Api): void {
  api = otelApi;
}

/** A span's attributes: identifiers, never payload values. */
type SpanAttributes = Record<string, string | number | boolean>;

/**
 * Runs `work` under a span of durable-jobs' own, for what no instrumentation covers (the ledger
 * transaction, the SMTP conversation). Attributes are identifiers, never payload values. With
 * tracing off it is a plain call: no module is loaded, no span made, and `attributes`, when a
 * function, is not called.
 */
export async function traced<T>(name: string, attributes: SpanAttributes | (() => SpanAttributes), work: () => Promise<T>): Promise<T> {
  const o = api;
  if (!o) return work();
  const values = typeof attributes === 'function' ? attributes() : attributes;
  return o.trace.getTracer('durable-jobs').startActiveSpan(name, { attributes: values }, async (span) => {
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
  const span = api?.trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

export type { TraceCarrier };
