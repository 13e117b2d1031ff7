import net from 'node:net';

/** Whether something accepts TCP connections on `host:port`. */
export function isListening(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/**
 * Why `host:port` cannot be bound right now (EADDRINUSE, EADDRNOTAVAIL, EACCES, …), or undefined
 * when it can: binds it, then lets go. Unlike {@link isListening}, it sees a port taken on another
 * interface that a wildcard bind would collide with.
 */
export function bindError(host: string, port: number): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err));
    server.listen(port, host, () => server.close(() => resolve(undefined)));
  });
}

/** A TCP port free on `host` right now (the kernel's choice). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
