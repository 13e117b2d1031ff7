// Where the worker's spans go: the OTLP exporter the standard variables choose, behind the
// project's redaction rules, and the resource that names the service.
import { Resource, detectResourcesSync, envDetectorSync } from '@opentelemetry/resources';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Context } from '@opentelemetry/api';
import type { Span } from '@opentelemetry/sdk-trace-base';
import { ConfigError } from '../shared/errors';
import { redact, redactDeep, secretsFromEnv } from '../shared/redact';

/** The service name when `OTEL_SERVICE_NAME` (or `service.name` in `OTEL_RESOURCE_ATTRIBUTES`) sets none. */
export const defaultServiceName = 'durable-jobs-worker';

/** The worker's resource: the default service name under what the `OTEL_*` variables set. */
export function tracingResource(): Resource {
  return new Resource({ 'service.name': defaultServiceName }).merge(detectResourcesSync({ detectors: [envDetectorSync] }));
}

/**
 * The OTLP trace exporter of `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` (else `OTEL_EXPORTER_OTLP_PROTOCOL`):
 * `http/protobuf` (the default), `http/json` or `grpc`. Each reads its endpoint, headers and
 * timeout from the standard variables itself.
 */
export function otlpTraceExporter(env: NodeJS.ProcessEnv = process.env): SpanExporter {
  const field = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = (env[field] ?? 'http/protobuf').trim();
  /* eslint-disable @typescript-eslint/no-require-imports -- only the chosen exporter is loaded */
  if (protocol === 'http/protobuf') return new (require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
  if (protocol === 'http/json') return new (require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  if (protocol === 'grpc') return new (require('@opentelemetry/exporter-trace-otlp-grpc') as typeof import('@opentelemetry/exporter-trace-otlp-grpc')).OTLPTraceExporter();
  /* eslint-enable @typescript-eslint/no-require-imports */
  throw new ConfigError([{ path: field, message: `unknown OTLP protocol "${protocol}" (known: http/protobuf, http/json, grpc)` }]);
}

/**
 * A batch processor to the OTLP exporter that first applies the redaction rules of the logs to
 * every span (its name, attributes, events and status message): URL passwords and the configured
 * secrets never leave the worker, whatever an instrumentation or an error message put there.
 */
export function redactingSpanProcessor(exporter: SpanExporter = otlpTraceExporter()): SpanProcessor {
  const batch = new BatchSpanProcessor(exporter);
  const secrets = secretsFromEnv();
  return {
    onStart: (span: Span, parent: Context) => batch.onStart(span, parent),
    onEnd: (span: ReadableSpan) => batch.onEnd(redactSpan(span, secrets)),
    forceFlush: () => batch.forceFlush(),
    shutdown: () => batch.shutdown(),
  };
}

/** The span with its text redacted in place (a span is immutable once ended, and this runs just before export). */
export function redactSpan(span: ReadableSpan, secrets: readonly string[]): ReadableSpan {
  const mutable = span as { -readonly [K in keyof ReadableSpan]: ReadableSpan[K] };
  mutable.name = redact(span.name, secrets);
  mutable.attributes = redactDeep(span.attributes, secrets);
  mutable.events = span.events.map((e) => (e.attributes ? { ...e, attributes: redactDeep(e.attributes, secrets) } : e));
  if (span.status.message) mutable.status = { ...span.status, message: redact(span.status.message, secrets) };
  return span;
}
