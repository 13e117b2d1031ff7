import net, { type AddressInfo } from 'node:net';

/** A mail relay's front door that can go down: while down it resets every connection (counting them); while up it passes them to the real relay. */
export interface SwitchableRelay {
  /** `smtp://127.0.0.1:<port>` */
  url: string;
  /** Resets every new connection until {@link up}. */
  down(): void;
  up(): void;
  /** Connections made while down: the attempts against the relay during the outage. */
  refused(): number;
  /** Connections passed to the relay. */
  passed(): number;
  close(): Promise<void>;
}

/** Starts the front door of the SMTP server at `target` (`smtp://host:port`), up. */
export async function startSwitchableRelay(target: string): Promise<SwitchableRelay> {
  const { hostname, port } = new URL(target);
  let isDown = false;
  let refused = 0;
  let passed = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (isDown) {
      refused += 1;
      client.resetAndDestroy();
      return;
    }
    passed += 1;
    const upstream = net.connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const socket of [client, upstream]) socket.on('close', closeBoth).on('error', closeBoth);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`,
    down: () => void (isDown = true),
    up: () => void (isDown = false),
    refused: () => refused,
    passed: () => passed,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
