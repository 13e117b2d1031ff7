/** Where a Jaeger started by {@link jaegerConfig} listens. */
export interface JaegerPorts {
  /** OTLP over HTTP (`OTEL_EXPORTER_OTLP_ENDPOINT`). @defaultValue 4318, the OTLP convention */
  otlpHttp: number;
  /** OTLP over gRPC. @defaultValue 4317 */
  otlpGrpc: number;
  /** The UI and the query API (`/api/v3/traces`). @defaultValue 16686, Jaeger's */
  query: number;
  /** The query API over gRPC. @defaultValue 16685 */
  queryGrpc: number;
}

/** Jaeger's own ports. */
export const defaultJaegerPorts: JaegerPorts = { otlpHttp: 4318, otlpGrpc: 4317, query: 16686, queryGrpc: 16685 };

/**
 * The configuration of an all-in-one Jaeger v2 on `host`: OTLP in, traces kept in memory (the
 * newest `maxTraces`), the UI and query API out; no sampling extension, no metrics endpoint of its
 * own (so that several can run side by side), warnings and errors logged only.
 */
export function jaegerConfig(host: string, ports: JaegerPorts, maxTraces = 100_000): string {
  return `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: ${maxTraces}
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: ${host}:${ports.query}
    grpc:
      endpoint: ${host}:${ports.queryGrpc}
receivers:
  otlp:
    protocols:
      http:
        endpoint: ${host}:${ports.otlpHttp}
      grpc:
        endpoint: ${host}:${ports.otlpGrpc}
processors:
  batch:
    timeout: 200ms
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`;
}
