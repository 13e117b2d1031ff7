import net, { type AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A message the test SMTP server accepted. */
export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  /** Whether the message came over TLS (STARTTLS). */
  secure: boolean;
}

/** A real SMTP server on loopback whose answers the test controls. */
export interface TestSmtpServer {
  /** `smtp://127.0.0.1:<port>` */
  url: string;
  /** Messages accepted, in order. */
  received: ReceivedMail[];
  /** Delivery attempts seen (one per MAIL FROM). */
  attempts: () => number;
  /** Connections whose DATA command the server is holding (see {@link TestSmtpOptions.holdData}). */
  holding: () => number;
  /** Answers every held DATA command now. */
  release: () => void;
  /** Connections that clients closed while their DATA command was held. */
  abandoned: () => number;
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
  /**
   * Holds the DATA phase open on the Nth delivery attempt: the server takes the DATA command but
   * sends its `354` go-ahead only after this many ms (`Infinity`: until `release()`), so the client
   * waits with the message unsent. `undefined` answers at once. @defaultValue never holds
   */
  holdData?: (attempt: number) => number | undefined;
  /**
   * Holds the server's reply to the message's final `.` on the Nth delivery attempt: the server has
   * the message (it is in {@link TestSmtpServer.received}), but the client hears so only after this
   * many ms (`Infinity`: until `release()`). `undefined` answers at once. @defaultValue never holds
   */
  holdReply?: (attempt: number) => number | undefined;
  /** Offer STARTTLS with this certificate and key (PEM). @defaultValue no STARTTLS */
  tls?: { cert: string; key: string };
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
    disabledCommands: options.tls ? [] : ['STARTTLS'],
    ...(options.tls ? { cert: options.tls.cert, key: options.tls.key } : {}),
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
          secure: session.secure,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const hold = { data: () => options.holdData?.(attempts), reply: () => options.holdReply?.(attempts) };
  const front = options.holdData || options.holdReply ? await holdingFront(port, hold) : undefined;
  return {
    url: `smtp://127.0.0.1:${front?.port ?? port}`,
    received,
    attempts: () => attempts,
    holding: () => front?.held.size ?? 0,
    release: () => front?.releaseAll(),
    abandoned: () => front?.abandoned() ?? 0,
    close: async () => {
      await front?.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The server's front door when it holds DATA or its reply: relays each connection to smtp-server,
 * but keeps the server's `354` reply (and whatever follows) from the client for as long as
 * `hold.data()` says, so that, to the client, the server is slow to start the DATA phase; or its
 * reply to the message's final `.`, for as long as `hold.reply()` says.
 */
async function holdingFront(serverPort: number, hold: { data: () => number | undefined; reply: () => number | undefined }) {
  const held = new Set<() => void>();
  const sockets = new Set<net.Socket>();
  let abandoned = 0;
  const front = net.createServer((client) => {
    const upstream = net.connect(serverPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    let gate: Buffer[] | undefined;
    let release: (() => void) | undefined;
    // Whether the client has sent a message's final "." and awaits the reply to it.
    let ended = false;
    upstream.on('data', (chunk: Buffer) => {
      if (gate) return void gate.push(chunk);
      const replyToEnd = ended && /^[245]\d\d[ -]/.test(chunk.toString('latin1'));
      if (replyToEnd) ended = false;
      const at = chunk.toString('latin1').search(/(^|\r\n)354[ -]/);
      const ms = replyToEnd ? hold.reply() : at === -1 ? undefined : hold.data();
      if (ms === undefined) return void client.write(chunk);
      gate = [chunk];
      release = () => {
        if (!release) return;
        held.delete(release);
        release = undefined;
        if (!client.destroyed) client.write(Buffer.concat(gate!));
        gate = undefined;
      };
      held.add(release);
      if (Number.isFinite(ms)) setTimeout(() => release?.(), ms);
    });
    let tail = '';
    client.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString('latin1')).slice(-5);
      if (tail === '\r\n.\r\n') ended = true;
      upstream.write(chunk);
    });
    const closeBoth = () => {
      if (release) {
        abandoned += 1;
        held.delete(release);
        release = undefined;
      }
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) socket.on('close', closeBoth).on('error', closeBoth);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  return {
    port: (front.address() as AddressInfo).port,
    held,
    abandoned: () => abandoned,
    releaseAll: () => [...held].forEach((release) => release()),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        front.close(() => resolve());
      }),
  };
}
