// `durable-jobs/console`, deprecated since 0.3 (removed in 0.4): `startConsole` and the console's
// types are in `durable-jobs/worker`. Its packages are optional peers: checked first, one line
// naming the missing ones.
import '../console/installed';
export { startConsole, type RunningConsole, type StartConsoleOptions } from '../console/server';
export { hashPassword, type ConsoleAccount, type ConsoleRole, type ConsoleUser } from '../console/users';
export type { ConsoleConfig, ConsoleConfigOverrides } from '../console/console-config';
