import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A record as the sync source serves it. */
export interface SourceRecord {
  id: string;
  updatedAt: string;
  data: Record<string, unknown>;
}

/** One request the source received. */
export interface SourceRequest {
  /** 1-based, in arrival order. */
  n: number;
  source: string;
  cursor: string | null;
  limit: number;
  /** The Authorization header, if the request carried one. */
  authorization?: string;
  /** The test clock (e.g. `env.currentTimeMs()`) when the request arrived, if the source was given one. */
  at?: number;
  /** The status the source answered with. */
  status: number;
}

/** A scripted answer that replaces the page for one request. */
export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  /** The raw body; e.g. `'{"records": ['` for malformed JSON. @defaultValue `{"error":"<status>"}` */
  body?: string;
}

/** Decides a request's answer: a scripted one, or undefined for the real page. May wait (to hold a request open). */
export type SourceScript = (request: Omit<SourceRequest, 'status' | 'at'>) => ScriptedAnswer | undefined | Promise<ScriptedAnswer | undefined>;

/** A paged JSON source on 127.0.0.1 that a test controls. */
export interface TestSyncSource {
  /** The base URL, for `SYNC_SOURCE_URL`. */
  url: string;
  /** Every request so far, in order. */
  requests: SourceRequest[];
  /** Sets the records served for a source name, in paging order. */
  setRecords(source: string, records: SourceRecord[]): void;
  /** Queues answers for the next requests, one each, before the script and the pages. */
  answerNext(...answers: ScriptedAnswer[]): void;
  /** Replaces the script consulted for every request after the queued answers. */
  script: SourceScript | undefined;
  close(): Promise<void>;
}

/** Options of {@link startSyncSource}. */
export interface SyncSourceOptions {
  /** Read as each request arrives, e.g. `() => env.currentTimeMs()`. @defaultValue none: `at` stays unset */
  clock?: () => Promise<number>;
}

/**
 * Starts the test source. Protocol: `GET /?source=<name>&cursor=<c>&limit=<n>` answers
 * `{ records, nextCursor }`. Its cursors are `o<offset>`; the first page has no cursor; an unknown
 * cursor or source answers 400 and 404.
 */
export async function startSyncSource(options: SyncSourceOptions = {}): Promise<TestSyncSource> {
  const data = new Map<string, SourceRecord[]>();
  const queued: ScriptedAnswer[] = [];
  const requests: SourceRequest[] = [];
  const self: TestSyncSource = {
    url: '',
    requests,
    setRecords: (source, records) => void data.set(source, records),
    answerNext: (...answers) => void queued.push(...answers),
    script: undefined,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };

  async function answer(request: Omit<SourceRequest, 'status' | 'at'>): Promise<ScriptedAnswer> {
    const scripted = queued.shift() ?? (await self.script?.(request));
    if (scripted) return scripted;
    const records = data.get(request.source);
    if (!records) return { status: 404, body: JSON.stringify({ error: `no source ${request.source}` }) };
    const offset = request.cursor === null ? 0 : /^o\d+$/.test(request.cursor) ? Number(request.cursor.slice(1)) : NaN;
    if (!Number.isInteger(offset) || offset > records.length) return { status: 400, body: JSON.stringify({ error: 'bad cursor' }) };
    const end = offset + request.limit;
    return { status: 200, body: JSON.stringify({ records: records.slice(offset, end), nextCursor: end < records.length ? `o${end}` : null }) };
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const request = {
      n: requests.length + 1,
      source: url.searchParams.get('source') ?? '',
      cursor: url.searchParams.get('cursor'),
      limit: Number(url.searchParams.get('limit') ?? '100'),
      authorization: req.headers.authorization,
    };
    const entry: SourceRequest = { ...request, status: 0 };
    requests.push(entry);
    void (async () => {
      if (options.clock) entry.at = await options.clock();
      const out = await answer(request);
      entry.status = out.status;
      res.writeHead(out.status, { 'content-type': 'application/json', ...out.headers });
      res.end(out.body ?? JSON.stringify({ error: String(out.status) }));
    })().catch((err: unknown) => {
      res.writeHead(500);
      res.end(String(err));
    });
  });
  server.keepAliveTimeout = 100;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/records`;
  return self;
}

/** `count` records `r001`… with one timestamp, for a source's pages. */
export function makeRecords(count: number, updatedAt = '2026-01-01T00:00:00.000Z'): SourceRecord[] {
  return Array.from({ length: count }, (_, i) => ({ id: `r${String(i + 1).padStart(3, '0')}`, updatedAt, data: { n: i + 1 } }));
}
