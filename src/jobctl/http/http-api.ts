// A client of Temporal's HTTP API (the frontend's `/api/v1`, proto3 JSON over HTTP/1.1) for the few
// reads jobctl makes there: node:http, one kept-alive connection, no gRPC stack to load.
import http from 'node:http';

/** The server answered with an error: `code` is the gRPC status code it carries (5: not found), `detail` the type of its first detail (`temporal.api.errordetails.v1.NotFoundFailure`). */
export class HttpApiError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly httpStatus: number,
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'HttpApiError';
  }
}

/** Nothing usable answered at the HTTP address (refused, reset, not Temporal's API, or too slow): the caller falls back to gRPC. */
export class HttpApiUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HttpApiUnavailable';
  }
}

/** The detail of the server's "no such workflow" (a missing namespace has NamespaceNotFoundFailure). */
export const workflowNotFoundDetail = 'temporal.api.errordetails.v1.NotFoundFailure';

/** The media type of Temporal's HTTP API answering with full payloads (`?noPayloadShorthand`). */
const fullPayloadsMediaType = 'application/json+no-payload-shorthand';

/** Calls of one jobctl command against one server and namespace. */
export class HttpApi {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  private readonly host: string;
  private readonly port: number;

  constructor(
    address: string,
    readonly namespace: string,
    private readonly timeoutMs = 5_000,
  ) {
    const colon = address.lastIndexOf(':');
    this.host = address.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
    this.port = Number(address.slice(colon + 1));
  }

  /** `GET` or `POST` of `/api/v1/namespaces/<namespace>/<path>` with full payloads (no shorthand); resolves to the JSON answer. */
  request(method: 'GET' | 'POST', path: string, query: Record<string, string> = {}, body?: unknown, timeoutMs = this.timeoutMs): Promise<unknown> {
    const search = new URLSearchParams(query).toString();
    const url = `/api/v1/namespaces/${encodeURIComponent(this.namespace)}/${path}?noPayloadShorthand${search ? `&${search}` : ''}`;
    const data = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = http.request(
        { host: this.host, port: this.port, method, path: url, agent: this.agent, headers: data === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', (err) => reject(new HttpApiUnavailable(err.message)));
          res.on('end', () => {
            let json: unknown;
            try {
              json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            } catch {
              return reject(new HttpApiUnavailable(`${method} ${path}: HTTP ${res.statusCode} without a JSON body (not Temporal's HTTP API?)`));
            }
            // Temporal's API answers ?noPayloadShorthand with its own media type: any other 200 is not
            // Temporal's API (or payloads in shorthand), and a reader must not take it for an answer.
            if (res.statusCode === 200) {
              if (res.headers['content-type'] === fullPayloadsMediaType) return resolve(json);
              return reject(new HttpApiUnavailable(`${method} ${path}: answered as ${res.headers['content-type'] ?? 'no media type'}, not Temporal's ${fullPayloadsMediaType}`));
            }
            const { code, message, details } = (json ?? {}) as { code?: unknown; message?: unknown; details?: { '@type'?: unknown }[] };
            if (typeof code !== 'number') return reject(new HttpApiUnavailable(`${method} ${path}: HTTP ${res.statusCode} (not Temporal's HTTP API?)`));
            const detail = Array.isArray(details) && typeof details[0]?.['@type'] === 'string' ? details[0]['@type'].replace(/^type\.googleapis\.com\//, '') : undefined;
            reject(new HttpApiError(code, typeof message === 'string' ? message : `HTTP ${res.statusCode}`, res.statusCode ?? 0, detail));
          });
        },
      );
      req.setTimeout(timeoutMs, () => req.destroy(new HttpApiUnavailable(`${method} ${path}: no answer within ${timeoutMs} ms`)));
      req.on('error', (err) => reject(err instanceof HttpApiUnavailable ? err : new HttpApiUnavailable(err.message)));
      req.end(data);
    });
  }

  /** Closes the kept-alive connection. */
  close(): void {
    this.agent.destroy();
  }
}
