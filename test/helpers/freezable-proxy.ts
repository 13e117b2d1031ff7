// A TCP relay on loopback that a test can freeze: from then on nothing it holds reaches either
// side, as when the network between a worker and Temporal stalls. A real connection, cut for real.
import net, { type AddressInfo } from 'node:net';

/** A relay to `host:port` and the switch that stalls it. */
export interface FreezableProxy {
  /** `127.0.0.1:<port>`: where clients connect instead. */
  address: string;
  /** From now on, every connection's bytes are held, in both directions, and never delivered. */
  freeze: () => void;
  close: () => Promise<void>;
}

/** Starts a relay to `target` (`host:port`). */
export async function startFreezableProxy(target: string): Promise<FreezableProxy> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const sockets = new Set<net.Socket>();
  let frozen = false;
  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    for (const [from, to] of [[client, upstream], [upstream, client]] as const) {
      sockets.add(from);
      from.on('data', (chunk: Buffer) => {
        if (!frozen) to.write(chunk);
      });
      from.on('error', () => to.destroy()).on('close', () => to.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    freeze: () => {
      frozen = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
