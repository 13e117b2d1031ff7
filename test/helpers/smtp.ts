import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A message the test SMTP server accepted. */
export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server on loopback whose answers the test controls. */
export interface TestSmtpServer {
  /** `smtp://127.0.0.1:<port>` */
  url: string;
  /** Messages accepted, in order. */
  received: ReceivedMail[];
  /** Delivery attempts seen (one per MAIL FROM). */
  attempts: () => number;
  close: () => Promise<void>;
}

/** What the server answers to the Nth delivery attempt (1-based): `undefined` accepts it. */
export type Responder = (attempt: number) => { code: number; message: string } | undefined;

/** Starts an SMTP server on 127.0.0.1 with a random port. */
export async function startSmtpServer(respond: Responder = () => undefined): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  let attempts = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onMailFrom(_address, _session, callback) {
      attempts += 1;
      const answer = respond(attempts);
      if (answer) return callback(Object.assign(new Error(answer.message), { responseCode: answer.code }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    attempts: () => attempts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
