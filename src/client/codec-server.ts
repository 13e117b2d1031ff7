import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { describeError, JobsError } from '../shared/errors';

/** Options of {@link startCodecServer}. */
export interface CodecServerOptions {
  /** The codecs to run, in the order the client and worker apply them. */
  codecs: PayloadCodec[];
  /** Address to listen on. Anyone who can reach it can decrypt, so keep it private. @defaultValue '127.0.0.1' */
  host?: string;
  /** Port to listen on; 0 picks a free one. */
  port: number;
  /** Web UI origins allowed to call it from a browser; other origins get 403. */
  origins: readonly string[];
}

/** A running codec server. */
export interface CodecServer {
  /** Its base URL, the Web UI's codec endpoint. */
  url: string;
  close: () => Promise<void>;
}

/** The JSON form of a payload on the remote-codec wire: bytes as base64. */
interface WirePayload {
  metadata?: Record<string, string>;
  data?: string;
}

const maxBodyBytes = 8 * 1024 * 1024;

/**
 * Serves Temporal's remote-codec protocol (`POST /encode`, `POST /decode` with
 * `{ payloads: [...] }`), so the Web UI and `temporal --codec-endpoint` can show decrypted payloads
 * to people who can reach it, while Temporal's database holds only ciphertext.
 */
export async function startCodecServer(options: CodecServerOptions): Promise<CodecServer> {
  const server = createServer((req, res) => {
    handle(options, req, res).catch((err: unknown) => reply(res, 500, { message: describeError(err) }));
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function handle(options: CodecServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    if (!options.origins.includes(origin)) return reply(res, 403, { message: `origin ${origin} may not use this codec server (CODEC_SERVER_ORIGINS)` });
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Credentials', 'true');
    res.setHeader('Vary', 'Origin');
  }
  if (req.method === 'OPTIONS') {
    res.setHeader('Access-Control-Allow-Methods', 'POST');
    res.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization');
    return reply(res, 204);
  }
  const operation = req.url?.replace(/\?.*/, '').replace(/\/+$/, '').split('/').at(-1);
  if (req.method !== 'POST' || (operation !== 'encode' && operation !== 'decode')) return reply(res, 404, { message: 'POST /encode or /decode' });
  let body: { payloads?: WirePayload[] };
  try {
    body = JSON.parse(await readBody(req)) as { payloads?: WirePayload[] };
    if (!Array.isArray(body.payloads)) throw new Error('the body must be {"payloads": [...]}');
  } catch (err) {
    return reply(res, 400, { message: describeError(err) });
  }
  let payloads = body.payloads.map(fromWire);
  try {
    const codecs = operation === 'encode' ? options.codecs : [...options.codecs].reverse();
    for (const codec of codecs) payloads = await (operation === 'encode' ? codec.encode(payloads) : codec.decode(payloads));
  } catch (err) {
    // A key this server lacks, or tampered bytes: the caller's problem, named, not a server fault.
    if (err instanceof JobsError) return reply(res, 422, { message: err.message });
    throw err;
  }
  reply(res, 200, { payloads: payloads.map(toWire) });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        reject(new Error(`the body exceeds ${maxBodyBytes} bytes`));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function reply(res: ServerResponse, status: number, body?: object): void {
  if (res.headersSent) return;
  res.statusCode = status;
  if (body === undefined) return void res.end();
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify(body));
}

function fromWire(p: WirePayload): Payload {
  const metadata = Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(String(v), 'base64')]));
  return { metadata, data: Buffer.from(p.data ?? '', 'base64') };
}

function toWire(p: Payload): WirePayload {
  const metadata = Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? new Uint8Array()).toString('base64')]));
  return { metadata, data: Buffer.from(p.data ?? new Uint8Array()).toString('base64') };
}
