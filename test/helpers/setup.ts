// Mocha root setup: keeps the SDK's log lines (TS and Rust core) out of test output unless
// TEST_LOG_LEVEL (TRACE, DEBUG, INFO, WARN or ERROR) asks for them.
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';

const level = process.env.TEST_LOG_LEVEL?.toUpperCase() as LogLevel | undefined;
Runtime.install({
  logger: level ? new DefaultLogger(level) : new DefaultLogger('ERROR', () => {}),
  telemetryOptions: { logging: { filter: { core: level ?? 'ERROR', other: 'ERROR' }, forward: {} } },
});
