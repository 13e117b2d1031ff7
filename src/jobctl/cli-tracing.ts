// jobctl's own spans, when tracing is configured (the same OTEL_* variables as the worker's):
// each command runs under a `jobctl <command>` span (made by `traced`, as the ledger's and SMTP's
// are), so the job a `jobctl enqueue` starts, or the redrive a `jobctl dlq redrive` asks for, has
// the command as its trace's root. Loaded only then.
import * as otelApi from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { enableTracedSpans } from '../shared/traced';
import { redactingSpanProcessor, tracingResource } from '../worker/trace-export';

/** jobctl's service name when `OTEL_SERVICE_NAME` sets none. */
export const cliServiceName = 'jobctl';

/** How long jobctl waits at exit for its spans to leave: a collector that is down must not hold a command up. */
export const cliFlushTimeoutMs = 2_000;

/** Tracing started for one jobctl process: its command runs under `traced`, which this turns on. */
export interface CliTracing {
  /** Exports what is buffered, waiting at most `cliFlushTimeoutMs`. */
  shutdown(): Promise<void>;
}

/** Starts the OpenTelemetry Node SDK for jobctl (no instrumentations: its calls are traced by the client interceptors). */
export function startCliTracing(): CliTracing {
  // No resource detection beyond the OTEL_* variables: the process detector would send jobctl's argv, payloads included.
  const sdk = new NodeSDK({ autoDetectResources: false, resource: tracingResource(cliServiceName), spanProcessors: [redactingSpanProcessor()], logRecordProcessors: [], instrumentations: [] });
  sdk.start();
  enableTracedSpans(otelApi);
  return {
    async shutdown() {
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, cliFlushTimeoutMs).unref()));
      await Promise.race([sdk.shutdown().catch(() => undefined), bound]);
      clearTimeout(timer);
    },
  };
}
