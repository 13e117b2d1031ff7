// The names the console answers to. A web page on any other name is refused before anything else,
// so DNS rebinding (a foreign name resolved to this machine) reaches no page, payload or action,
// and a state-changing request must come from a page on one of these names.
import { isIP } from 'node:net';
import type { Context, MiddlewareHandler } from 'hono';

/** Where a console listens and the extra names it serves (CONSOLE_HOST, CONSOLE_ALLOWED_HOSTS). */
export interface ServedHosts {
  host: string;
  allowedHosts: string[];
}

/** Whether `host` is a loopback interface (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** Every loopback console answers to these, whatever its listening address. */
const loopbackNames = ['localhost', '127.0.0.1', '[::1]'];

/** A host name as a URL holds it: lowercased, IPv6 in brackets, no port; undefined if it is none. */
export function hostNameOf(host: string): string | undefined {
  try {
    const url = new URL(`http://${host}`);
    if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) return undefined;
    return url.hostname.replace(/\.$/, '');
  } catch {
    return undefined;
  }
}

/**
 * The host names `config`'s console serves: the loopback names when it listens on loopback or on
 * every interface, its listening address when that is one, and CONSOLE_ALLOWED_HOSTS.
 */
export function servedHostNames(config: ServedHosts): Set<string> {
  const names = new Set(config.allowedHosts);
  const everyInterface = config.host === '0.0.0.0' || config.host === '::';
  if (isLoopback(config.host) || everyInterface) for (const name of loopbackNames) names.add(name);
  if (!everyInterface) {
    const own = hostNameOf(config.host.includes(':') && !config.host.startsWith('[') ? `[${config.host}]` : config.host);
    if (own) names.add(own);
  }
  return names;
}

/** Refuses, with 421, a request whose `Host` is not a name the console serves; `/healthz` answers any. */
export function hostGuard(config: ServedHosts): MiddlewareHandler {
  const served = servedHostNames(config);
  return async (c, next) => {
    if (c.req.path === '/healthz') return next();
    const host = c.req.header('host') ?? '';
    const name = hostNameOf(host);
    if (name === undefined || !served.has(name)) {
      // Names nothing it serves (a rebound page may read this): the operator knows them, or reads docs/security.md.
      return c.text(`this console does not answer to the host name '${host.slice(0, 200)}' (CONSOLE_ALLOWED_HOSTS lists the names it serves besides its address and loopback)`, 421);
    }
    return next();
  };
}

/**
 * Why a state-changing request must not be taken, if it must not: its `Origin` is not a page of
 * this console (a name it serves, with the request's own host and port), or it carries no Origin
 * and no `Sec-Fetch-Site: same-origin` (every current browser sends one of them), or Fetch
 * Metadata says it is cross-site.
 */
export function originRefusal(c: Context, config: ServedHosts): string | undefined {
  const origin = c.req.header('origin');
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return 'a cross-site request may not change anything here';
  if (origin === undefined) {
    return site === 'same-origin' ? undefined : 'a request that changes something must say where it comes from (an Origin header, as browsers send)';
  }
  let from: URL;
  try {
    from = new URL(origin);
  } catch {
    return `a request from ${origin} may not change anything here`;
  }
  const host = hostNameOf(c.req.header('host') ?? '');
  let sameHost = false;
  try {
    sameHost = new URL(`${from.protocol}//${c.req.header('host') ?? ''}`).host === from.host;
  } catch {
    sameHost = false;
  }
  if (!sameHost || host === undefined || !servedHostNames(config).has(hostNameOf(from.host) ?? '')) return `a request from ${origin} may not change anything here`;
  return undefined;
}
