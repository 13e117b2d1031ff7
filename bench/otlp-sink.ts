// The trace backend of the `ours-traced` scenario: an OTLP/HTTP receiver in a process of its own
// (its CPU is neither the worker's nor the bench client's), which answers every export at once and
// counts what it was sent, so a run shows that tracing was on and how much it exported per job.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { sampleProcess } from './proc';

/** What the sink received. */
export interface SinkCounts {
  /** Export requests (batches). */
  requests: number;
  /** Bytes of their bodies (OTLP protobuf). */
  bytes: number;
}

/** A running sink. */
export interface OtlpSink {
  /** Its OTLP/HTTP endpoint, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  endpoint: string;
  /** What it has received so far, and the CPU seconds it used. */
  counts(): Promise<SinkCounts & { cpuSeconds: number | null }>;
  stop(): Promise<void>;
}

/** Starts the sink in a child process and waits for its port. */
export async function startOtlpSink(): Promise<OtlpSink> {
  const child = spawn(process.execPath, ['--import', 'tsx', __filename], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const waiters: ((line: string) => void)[] = [];
  let buffered = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
      const line = buffered.slice(0, i);
      buffered = buffered.slice(i + 1);
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  const next = () => new Promise<string>((resolve, reject) => {
    const line = lines.shift();
    if (line !== undefined) return resolve(line);
    waiters.push(resolve);
    child.once('exit', (code) => reject(new Error(`the OTLP sink exited (${code})`)));
  });
  const { port } = JSON.parse(await next()) as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async counts() {
      child.stdin!.write('counts\n');
      const counts = JSON.parse(await next()) as SinkCounts;
      return { ...counts, cpuSeconds: (await sampleProcess(child.pid))?.cpuSeconds ?? null };
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

function serve(): void {
  const counts: SinkCounts = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (counts.bytes += chunk.length));
    req.on('end', () => {
      counts.requests++;
      // An empty ExportTraceServiceResponse: every span accepted.
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/x-protobuf' }).end(req.headers['content-type']?.includes('json') ? '{}' : '');
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 }) + '\n');
  });
  process.stdin.setEncoding('utf8').on('data', () => process.stdout.write(JSON.stringify(counts) + '\n'));
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

if (require.main === module) serve();
