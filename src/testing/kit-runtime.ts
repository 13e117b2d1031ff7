// The test kit's logs: a test run wants failures, not the SDK's lifecycle. The Temporal runtime is
// per process and installed once, before the first server or worker uses it: the kit installs it
// then, at warn (or LOG_LEVEL, or through the caller's logger), unless the process installed one first.
import { DefaultLogger, Runtime, type Logger, type LogLevel } from '@temporalio/worker';
import { InvalidOptionError } from '../shared/errors';

const levels: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

/** The kit's log level: LOG_LEVEL when set, else warn. A level the SDK does not know is refused, naming it. */
export function kitLogLevel(env: NodeJS.ProcessEnv = process.env): LogLevel {
  const given = env.LOG_LEVEL?.trim();
  if (!given) return 'WARN';
  const level = given.toUpperCase() as LogLevel;
  if (!levels.includes(level)) throw new InvalidOptionError([{ path: 'LOG_LEVEL', message: `must be one of ${levels.map((l) => l.toLowerCase()).join(', ')}, got ${JSON.stringify(given)}` }]);
  return level;
}

/**
 * Installs the runtime the kit logs through: `logger` when given, else the SDK's console logger at
 * {@link kitLogLevel}. Returns false when the process already had a runtime, which is kept (its
 * logger then decides).
 */
export function installKitRuntime(logger?: Logger): boolean {
  const level = kitLogLevel();
  try {
    Runtime.install({
      logger: logger ?? new DefaultLogger(level),
      // The SDK's Rust core: warnings and errors only, unless asked for more.
      telemetryOptions: { logging: { filter: { core: level === 'TRACE' || level === 'DEBUG' ? level : 'WARN', other: 'ERROR' }, forward: {} } },
    });
    return true;
  } catch (err) {
    if (err instanceof Error && /already been instantiated|already installed|IllegalState/i.test(`${err.name} ${err.message}`)) return false;
    throw err;
  }
}
