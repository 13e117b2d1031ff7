import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { repoRoot, startDevServerEnv, uniqueId } from '../helpers/env';
import { startTestJaeger, type TestJaeger } from '../helpers/jaeger';
import { runCommand } from '../helpers/processes';
import { waitFor } from '../helpers/dlq';

const jobctl = path.join(repoRoot, 'bin/jobctl.js');

// jobctl with the OTEL_* variables set traces its own command: the job it enqueues has the command's
// span as its trace's root. No worker runs: the trace is the client's side, and the job's start
// carries its context for the worker's spans to join.
describe('jobctl traces its commands when tracing is configured (real dev server, real Jaeger)', function () {
  this.timeout(180_000);
  let env: TestWorkflowEnvironment;
  let jaeger: TestJaeger;
  const ctlEnv = (extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv => {
    const base: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_ADDRESS: env.address, TEMPORAL_TASK_QUEUE: uniqueId('cli-traced') };
    for (const k of Object.keys(base)) if (k.startsWith('OTEL_')) delete base[k];
    return { ...base, ...extra };
  };

  before(async () => {
    jaeger = await startTestJaeger();
    env = await startDevServerEnv();
  });
  after(async () => {
    await env?.teardown();
    await jaeger?.close();
  });

  it('jobctl enqueue runs under a `jobctl enqueue` root span, parent of the start, whose context the job carries; no payload value in any span', async () => {
    const since = new Date();
    const id = uniqueId('cli-traced-job');
    const to = `${uniqueId('marker')}@example.com`;
    const ran = await runCommand(process.execPath, [jobctl, 'enqueue', 'send-email', JSON.stringify({ userId: 'u-77', to, subject: 'receipt 88412', body: 'hello' }), '--id', id], ctlEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpUrl }), repoRoot);
    assert.equal(ran.code, 0, ran.stderr);
    const spans = await waitFor(() => jaeger.search('jobctl', since), (found) => found.some((s) => s.name.startsWith('StartWorkflow')), 30_000);
    const root = spans.find((s) => s.name === 'jobctl enqueue');
    assert.ok(root, `a jobctl enqueue span among ${spans.map((s) => s.name).join(', ')}`);
    assert.equal(root.parentSpanId || undefined, undefined, 'the command is the root');
    assert.equal(root.attributes['jobctl.command'], 'enqueue');
    const start = spans.find((s) => s.name === 'StartWorkflow:sendEmailWorkflow');
    assert.ok(start, `the start of the job is traced: ${spans.map((s) => s.name).join(', ')}`);
    assert.equal(start.traceId, root.traceId);
    assert.equal(start.parentSpanId, root.spanId);
    for (const s of spans) for (const value of [to, '88412', 'hello']) assert.ok(!s.raw.includes(value), `${s.name} holds the payload value ${value}`);
    // The job's start carries the trace context for its workflow's spans (the worker's).
    const history = await env.client.workflow.getHandle(id).fetchHistory();
    const header = history.events?.[0]?.workflowExecutionStartedEventAttributes?.header?.fields ?? {};
    const carried = Object.values(header).map((p) => Buffer.from(p.data ?? new Uint8Array()).toString('utf8')).join(' ');
    assert.ok(carried.includes(root.traceId), `the start's header carries trace ${root.traceId}: ${carried}`);
  });

  it('a collector that never answers holds a command up by the flush bound only, and loses no job', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const id = uniqueId('cli-traced-silent');
      const started = Date.now();
      const ran = await runCommand(process.execPath, [jobctl, 'enqueue', 'noop', '{}', '--id', id], ctlEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` }), repoRoot);
      const took = Date.now() - started;
      assert.equal(ran.code, 0, ran.stderr);
      // The OTLP exporter's own timeout is 10 s; jobctl waits at most 2 s for it.
      assert.ok(took < 9_000, `jobctl took ${took} ms against a collector that never answers`);
      assert.equal((await env.client.workflow.getHandle(id).describe()).status.name, 'RUNNING', 'the job was enqueued');
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
