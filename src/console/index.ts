// The console's public entry point (`durable-jobs/console`): start the operator console from your
// own process, over your own catalog.
export { startConsole, type RunningConsole, type StartConsoleOptions } from './server';
export { hashPassword, type ConsoleAccount, type ConsoleRole, type ConsoleUser } from './users';
export type { ConsoleConfig, ConsoleConfigOverrides } from './console-config';
