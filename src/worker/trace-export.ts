// Where the worker's spans go: the OTLP exporter the standard variables choose, behind the
// project's redaction rules, and the resource that names the service.
import { Resource, detectResourcesSync, envDetectorSync } from '@opentelemetry/resources';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Attributes, Context } from '@opentelemetry/api';
import type { Span } from '@opentelemetry/sdk-trace-base';
import { ConfigError } from '../shared/errors';
import { redact, redactDeep, secretsFromEnv } from '../shared/redact';
import { otlpProtocol } from '../shared/tracing-env';

/** The service name when `OTEL_SERVICE_NAME` (or `service.name` in `OTEL_RESOURCE_ATTRIBUTES`) sets none. */
export const defaultServiceName = 'durable-jobs-worker';

/** The process's resource: a default service name (the worker's unless given) under what the `OTEL_*` variables set. */
export function tracingResource(serviceName: string = defaultServiceName): Resource {
  return new Resource({ 'service.name': serviceName }).merge(detectResourcesSync({ detectors: [envDetectorSync] }));
}

/**
 * The OTLP trace exporter of `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` (else `OTEL_EXPORTER_OTLP_PROTOCOL`):
 * `http/protobuf` (the default), `http/json` or `grpc`. Each reads its endpoint, headers and
 * timeout from the standard variables itself.
 */
export function otlpTraceExporter(env: NodeJS.ProcessEnv = process.env): SpanExporter {
  const { field, protocol } = otlpProtocol(env);
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

/**
 * The span with its text redacted in place (a span is immutable once ended, and this runs just
 * before export). Error messages are left out too, in exception events, their stack traces and the
 * status: a message may quote the payload (`account "x" does not exist`). The error's type stays
 * (`exception.type`, `job.error_type`); its message is in the job's history and logs.
 */
export function redactSpan(span: ReadableSpan, secrets: readonly string[]): ReadableSpan {
  const mutable = span as { -readonly [K in keyof ReadableSpan]: ReadableSpan[K] };
  // One line: an instrumentation may name a span after a query's text ("pg.query:\n jobs").
  mutable.name = redact(span.name, secrets).replace(/\s+/g, ' ').trim();
  mutable.attributes = redactDeep(withoutQueryStrings(validAttributes(span.attributes)), secrets);
  mutable.events = span.events.map((e) => (e.attributes ? { ...e, attributes: redactDeep(withoutMessage(e.attributes), secrets) } : e));
  if (span.status.message) mutable.status = { code: span.status.code };
  return span;
}

const primitive = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/**
 * The attributes OpenTelemetry allows (primitives and arrays of them). The Temporal SDK's workflow
 * exporter copies the whole `WorkflowInfo` onto each workflow span, objects included (`memo`,
 * `searchAttributes`, `priority`, `unsafe`, `lastFailure`): they are dropped, the identifiers kept.
 */
function validAttributes(attributes: Attributes): Attributes {
  const entries = Object.entries(attributes);
  if (entries.every(([, v]) => primitive(v) || v === undefined)) return attributes;
  return Object.fromEntries(entries.filter(([, v]) => primitive(v) || (Array.isArray(v) && v.every(primitive))));
}

/** Attributes that hold a whole URL, whose query string is cut; `url.query` is dropped. */
const urlAttributes = ['url.full', 'http.url'];

/**
 * The attributes without the query strings of the URLs an instrumentation recorded (undici's
 * `url.full`): a query carries a request's parameters, which come from the payload or the remote
 * side (a sync source's name and its cursor), not identifiers.
 */
function withoutQueryStrings(attributes: Attributes): Attributes {
  if (!urlAttributes.some((k) => k in attributes) && !('url.query' in attributes)) return attributes;
  const rest = { ...attributes };
  delete rest['url.query'];
  for (const key of urlAttributes) {
    const value = rest[key];
    if (typeof value === 'string') rest[key] = value.replace(/[?#].*$/s, '');
  }
  return rest;
}

function withoutMessage(attributes: Attributes): Attributes {
  const rest = { ...attributes };
  delete rest['exception.message'];
  const stack = rest['exception.stacktrace'];
  // The first lines of a stack trace repeat the message; the frames are kept.
  if (typeof stack === 'string') rest['exception.stacktrace'] = stack.slice(Math.max(0, stack.search(/\n\s+at /) + 1));
  return rest;
}
