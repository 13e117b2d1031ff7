import { redact, secretsFromEnv } from './redact';
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

/**
 * Where spans go, for a start-up banner or log line ("OTLP http/protobuf to http://…:4318"), its
 * URL's password redacted; undefined when tracing is off.
 */
export function tracingTarget(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!tracingConfigured(env)) return undefined;
  const endpoint = (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT)!;
  return `OTLP ${otlpProtocol(env).protocol} to ${redact(endpoint, secretsFromEnv(env))}`;
}

/**
 * The OTLP protocol of traces and the variable that chose it: `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`,
 * else `OTEL_EXPORTER_OTLP_PROTOCOL`, else `http/protobuf`. Not checked here (the exporter's choice is).
 */
export function otlpProtocol(env: NodeJS.ProcessEnv = process.env): { field: string; protocol: string } {
  const field = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  return { field, protocol: (env[field] ?? 'http/protobuf').trim() };
}

/** Where `@opentelemetry/api` 1.x keeps what a process registered (`trace`, `propagation`, `context`). */
const otelGlobal = Symbol.for('opentelemetry.js.api.1');

/**
 * Whether this process registered a global OpenTelemetry tracer provider (an application running
 * the OpenTelemetry SDK of its own, set up in code rather than by the `OTEL_*` variables). Read
 * from the API's global slot, without loading any OpenTelemetry module.
 */
export function tracerProviderRegistered(): boolean {
  const registered = (globalThis as Record<symbol, { trace?: unknown } | undefined>)[otelGlobal];
  return registered?.trace !== undefined;
}

/** A W3C trace context as carried in a stored record: `traceparent`, and `tracestate` when set. */
export type TraceCarrier = Record<string, string>;
