// Imported first by the worker's entry points (`npm run worker`, `npm start`): tracing starts
// before the modules it instruments (pg) are loaded, which it can only patch on their first load.
import { ConfigError, ErrorType, JobsError } from '../shared/errors';
import { loadPart } from '../shared/optional-packages';
import { tracingConfigured } from '../shared/tracing-env';

/**
 * Starts tracing when it is configured (`OTEL_EXPORTER_OTLP_ENDPOINT`, see docs/guide/tracing.md),
 * and does nothing otherwise: no OpenTelemetry module is loaded. Call it before importing your
 * database driver to have its queries traced; `createWorker` starts tracing itself otherwise.
 * @returns whether tracing is on
 */
export function startTracingIfConfigured(): boolean {
  if (!tracingConfigured()) return false;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when tracing is configured
  loadPart('tracing', () => require('./tracing') as typeof import('./tracing')).startTracing();
  return true;
}

try {
  startTracingIfConfigured();
} catch (err) {
  // A bad OTEL_* setting (an unknown protocol) is a configuration error, which the worker's start
  // reports as it reports the others (its message, exit 1): createWorker starts tracing again and
  // meets the same error there. Thrown here, at import, it would be an uncaught stack trace. So
  // with a missing OpenTelemetry package (MissingPackageError).
  if (!(err instanceof ConfigError) && !(err instanceof JobsError && err.type === ErrorType.MissingPackage)) throw err;
}
