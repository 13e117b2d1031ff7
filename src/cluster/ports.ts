import net from 'node:net';
import type { NodePorts } from './server-node';

function canListen(ip: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, ip, () => server.close(() => resolve(true)));
  });
}

/**
 * A TCP port free on `ip` right now, below 32768: Temporal stores membership ports in a PostgreSQL
 * `smallint`, and the kernel's ephemeral ports (what port 0 gives) lie above it.
 */
export async function freePortOn(ip: string): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canListen(ip, port)) return port;
  }
}

/** A node's nine ports, each free on `ip` (for tests, beside other servers on this machine). */
export async function freeNodePorts(ip: string): Promise<NodePorts> {
  const keys: (keyof NodePorts)[] = ['frontend', 'frontendHttp', 'frontendMembership', 'history', 'historyMembership', 'matching', 'matchingMembership', 'worker', 'workerMembership'];
  const ports: Partial<NodePorts> = {};
  const taken = new Set<number>();
  for (const key of keys) {
    let port = await freePortOn(ip);
    while (taken.has(port)) port = await freePortOn(ip);
    taken.add(port);
    ports[key] = port;
  }
  return ports as NodePorts;
}
