// Mocha root setup: keeps the SDK's own log lines out of test output unless TEST_LOG_LEVEL asks for them.
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';

const level = process.env.TEST_LOG_LEVEL?.toUpperCase() as LogLevel | undefined;
Runtime.install({ logger: level ? new DefaultLogger(level) : new DefaultLogger('ERROR', () => {}) });
