// The bench client's side of `ours-traced`: the application's own OpenTelemetry SDK, as a team's
// API process would run it (a tracer provider exporting OTLP, W3C propagation, async context), so
// the enqueue's span is made and exported and the job's spans are its children.
import { context, propagation } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Tracer } from '@opentelemetry/api';

let provider: BasicTracerProvider | undefined;

/** Registers the bench process's tracer provider, exporting to `endpoint` (once; later calls re-point nothing). */
export function benchTracer(endpoint: string): { tracer: Tracer; flush(): Promise<void> } {
  if (!provider) {
    provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint}/v1/traces` }))] });
    // Not registered as the global provider: the client is given its tracer, and a process that
    // runs the bench in-process (its test, under mocha) keeps its global provider free for others.
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  }
  const current = provider;
  return { tracer: current.getTracer('bench-client'), flush: () => current.forceFlush() };
}
