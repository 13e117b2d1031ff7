/** `host:port`, the host a name, an IPv4 address or a bracketed IPv6 address. */
const pattern = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

/** Whether `text` is a `host:port` with a port from 1 to 65535 (TEMPORAL_HTTP_ADDRESS). */
export function isHttpAddress(text: string): boolean {
  const match = pattern.exec(text);
  const port = match ? Number(match[2]) : 0;
  return port >= 1 && port <= 65535;
}
