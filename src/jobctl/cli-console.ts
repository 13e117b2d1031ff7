import type { Command } from 'commander';
import { requirePart } from '../shared/optional-packages';
import { openJobsDatabase } from './cli-database';
import { UsageError, parsePort, withClient } from './cli-support';

/** Adds `jobctl console` and `jobctl console hash-password`. */
export function addConsoleCommand(program: Command): void {
  const command = program
    .command('console')
    .description('Serve the operator console (overview, jobs, dead letters, schedules) against the configured deployment; Ctrl-C stops it')
    .option('--host <host>', 'address to listen on; any but loopback needs CONSOLE_USERS_FILE (CONSOLE_HOST, default 127.0.0.1)')
    .option('--port <port>', 'port to listen on, 0 for any free one (CONSOLE_PORT, default 7280)')
    .action(async (opts: { host?: string; port?: string }) => {
      const port = opts.port === undefined ? undefined : parsePort(opts.port, '--port');
      await withClient(async (jobs) => {
        // Loaded here, so that no other jobctl command pays for the web stack.
        requirePart('console');
        const { startConsole } = await import('../console/server.js');
        // The ledger, for the redrive preview.
        const db = await openJobsDatabase();
        const running = await startConsole({ jobs, db, host: opts.host, port });
        console.log(`console on ${running.url}${running.accounts ? '' : ' (loopback, no accounts: you are the operator "local")'}; Ctrl-C stops it`);
        await new Promise<void>((resolve) => process.once('SIGINT', resolve).once('SIGTERM', resolve));
        await running.close();
        await db?.destroy();
      }, 'optional', 'the console');
    });
  command
    .command('hash-password')
    .description('Read a password on stdin and print its hash for CONSOLE_USERS_FILE')
    .action(async () => {
      const { hashPassword, passwordTooShort } = await import('../console/users.js');
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      const password = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
      if (!password) throw new UsageError('no password on stdin: e.g. `read -rs P && printf %s "$P" | jobctl console hash-password`');
      const short = passwordTooShort(password);
      if (short) throw new UsageError(short);
      if (/[\r\n]/.test(password)) throw new UsageError('the password on stdin has more than one line: give it on one line (a sign-in field takes one)');
      console.log(await hashPassword(password));
    });
}
