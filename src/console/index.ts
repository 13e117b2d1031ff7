// The console's public entry point (`durable-jobs/console`): start the operator console from your
// own process, over your own catalog. Its packages are optional peers: checked first, one line
// naming the missing ones.
import './installed';
export { startConsole, type RunningConsole, type StartConsoleOptions } from './server';
export { hashPassword, type ConsoleAccount, type ConsoleRole, type ConsoleUser } from './users';
export type { ConsoleConfig, ConsoleConfigOverrides } from './console-config';
