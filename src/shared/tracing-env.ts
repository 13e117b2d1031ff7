/**
 * Whether OpenTelemetry tracing is configured, by the ecosystem's own variables: an OTLP endpoint
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` for traces alone), not
 * turned off by `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`. Read without loading any
 * OpenTelemetry module: when this is false, none is loaded and no interceptor is installed.
 */
export function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return false;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  return env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() !== 'none';
}

/** A W3C trace context as carried in a stored record: `traceparent`, and `tracestate` when set. */
export type TraceCarrier = Record<string, string>;
