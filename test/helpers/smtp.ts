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

/** Options of {@link startSmtpServer}. */
export interface TestSmtpOptions {
  /**
   * The SMTP command the responder's refusals answer: the sender (`MAIL FROM`), the recipient
   * (`RCPT TO`) or the message itself (`DATA`). @defaultValue 'DATA'
   */
  stage?: 'MAIL FROM' | 'RCPT TO' | 'DATA';
  /** Require this login; any other is refused with 535. @defaultValue no login needed */
  login?: { user: string; pass: string };
}

/** Starts an SMTP server on 127.0.0.1 with a random port. */
export async function startSmtpServer(respond: Responder = () => undefined, options: TestSmtpOptions = {}): Promise<TestSmtpServer> {
  const stage = options.stage ?? 'DATA';
  const received: ReceivedMail[] = [];
  let attempts = 0;
  const refusal = (at: TestSmtpOptions['stage']) => {
    if (at !== stage) return undefined;
    const answer = respond(attempts);
    return answer && Object.assign(new Error(answer.message), { responseCode: answer.code });
  };
  const server = new SMTPServer({
    authOptional: options.login === undefined,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (options.login && auth.username === options.login.user && auth.password === options.login.pass) return callback(null, { user: auth.username });
      callback(Object.assign(new Error('authentication credentials invalid'), { responseCode: 535 }));
    },
    onMailFrom(_address, _session, callback) {
      attempts += 1;
      callback(refusal('MAIL FROM') ?? undefined);
    },
    onRcptTo(_address, _session, callback) {
      callback(refusal('RCPT TO') ?? undefined);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const refused = refusal('DATA');
        if (refused) return callback(refused);
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
