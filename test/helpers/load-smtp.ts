import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/**
 * A real SMTP server for mixed load, answering by recipient: `flaky-…` is refused with 451 (try
 * again later) on its first attempt, `bounce-…` with 550 (never retried), `held-…` waits until
 * released; anyone else is accepted. Accepted messages are counted by Message-ID.
 */
export interface LoadSmtpServer {
  url: string;
  /** Accepted deliveries per Message-ID (more than one is an at-least-once repeat). */
  delivered: Map<string, number>;
  /** Recipient addresses seen at RCPT TO, in order. */
  recipients: string[];
  /** Resolves when a `held-…` recipient's RCPT TO arrives. */
  held: (address: string) => Promise<void>;
  /** Lets `held-…` recipients through from now on. */
  release: () => void;
  close: () => Promise<void>;
}

/** Starts it on 127.0.0.1 with a random port. */
export async function startLoadSmtpServer(): Promise<LoadSmtpServer> {
  const delivered = new Map<string, number>();
  const recipients: string[] = [];
  const flakySeen = new Set<string>();
  const arrived = new Map<string, () => void>();
  const arrivals = new Map<string, Promise<void>>();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const arrival = (address: string) => {
    if (!arrivals.has(address)) arrivals.set(address, new Promise<void>((resolve) => arrived.set(address, resolve)));
    return arrivals.get(address)!;
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const to = address.address;
      recipients.push(to);
      if (to.startsWith('bounce-')) return callback(Object.assign(new Error('no such mailbox'), { responseCode: 550 }));
      if (to.startsWith('flaky-') && !flakySeen.has(to)) {
        flakySeen.add(to);
        return callback(Object.assign(new Error('try again later'), { responseCode: 451 }));
      }
      if (to.startsWith('held-')) {
        void arrival(to);
        arrived.get(to)!();
        void released.then(() => callback());
        return;
      }
      callback();
    },
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const id = /^Message-ID:\s*(\S+)/im.exec(Buffer.concat(chunks).toString('utf8'))?.[1] ?? '(none)';
        delivered.set(id, (delivered.get(id) ?? 0) + 1);
        callback();
      });
    },
  });
  // A worker killed mid-session resets its connection; that is the fault under test, not an error here.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    delivered,
    recipients,
    held: arrival,
    release,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
