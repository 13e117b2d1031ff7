// Imported first by the worker's entry points (`npm run worker`, `npm start`): tracing starts
// before the modules it instruments (pg) are loaded, which it can only patch on their first load.
import { tracingConfigured } from '../shared/tracing-env';

/**
 * Starts tracing when it is configured (`OTEL_EXPORTER_OTLP_ENDPOINT`, see docs/operations.md),
 * and does nothing otherwise: no OpenTelemetry module is loaded. Call it before importing your
 * database driver to have its queries traced; `createWorker` starts tracing itself otherwise.
 * @returns whether tracing is on
 */
export function startTracingIfConfigured(): boolean {
  if (!tracingConfigured()) return false;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when tracing is configured
  (require('./tracing') as typeof import('./tracing')).startTracing();
  return true;
}

startTracingIfConfigured();
