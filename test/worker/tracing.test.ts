import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { newKeyEntry } from '../../src/shared/encryption-keys';
import { secretsFromEnv } from '../../src/shared/redact';
import { tracingConfigured, tracingTarget } from '../../src/shared/tracing-env';
import { redactSpan } from '../../src/worker/trace-export';
import { repoRoot } from '../helpers/env';

describe('tracing settings and redaction', function () {
  this.timeout(60_000);
  it('is on only with an OTLP endpoint, and off again with OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none', () => {
    assert.equal(tracingConfigured({}), false);
    assert.equal(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }), true);
    assert.equal(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }), true);
    assert.equal(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }), false);
    assert.equal(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' }), false);
    // What the banner and the worker's start line say, its password redacted.
    assert.equal(tracingTarget({}), undefined);
    assert.equal(tracingTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://u:Pw5ecret@h:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }), 'OTLP grpc to https://u:***@h:4318');
  });

  it('loads no OpenTelemetry module when off: the worker, the client, jobctl and the activities', () => {
    const script = `
      require('./src/worker/tracing-start');
      require('./src/worker/create-worker');
      require('./src/client/job-client');
      require('./src/jobctl/cli');
      require('./src/app/worker');
      const { traced, activeTraceIds } = require('./src/shared/traced');
      traced('x', {}, async () => 1).then(() => {
        activeTraceIds();
        const loaded = Object.keys(require.cache).filter((f) => /@opentelemetry|interceptors-opentelemetry/.test(f));
        process.stdout.write(JSON.stringify(loaded));
      });`;
    const env = { ...process.env };
    for (const k of Object.keys(env)) if (k.startsWith('OTEL_')) delete env[k];
    const loaded = (extra: NodeJS.ProcessEnv) => JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: repoRoot, env: { ...env, ...extra }, encoding: 'utf8' })) as string[];
    assert.deepEqual(loaded({}), []);
    // The control: configured, the same imports do load it.
    assert.ok(loaded({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_BSP_EXPORT_TIMEOUT: '500', OTEL_EXPORTER_OTLP_TIMEOUT: '500' }).some((f) => f.includes('@opentelemetry/sdk-node')));
  });

  it('makes its own spans once tracing starts, even in a process that ran traced work before it was configured (a test runner)', () => {
    const script = `
      const { traced, activeTraceIds } = require('./src/shared/traced');
      (async () => {
        const before = await traced('before', {}, async () => activeTraceIds());
        process.env.OTEL_EXPORTER_OTLP_ENDPOINT = 'http://127.0.0.1:9';
        require('./src/worker/tracing').startTracing();
        const after = await traced('after', {}, async () => activeTraceIds());
        process.stdout.write(JSON.stringify({ before, after }));
        process.exit(0);
      })();`;
    const env: NodeJS.ProcessEnv = { ...process.env, OTEL_BSP_EXPORT_TIMEOUT: '500', OTEL_EXPORTER_OTLP_TIMEOUT: '500' };
    for (const k of Object.keys(env)) if (k.startsWith('OTEL_EXPORTER') || k === 'OTEL_SDK_DISABLED' || k === 'OTEL_TRACES_EXPORTER') delete env[k];
    const out = JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: repoRoot, env, encoding: 'utf8' })) as { before: { trace_id?: string }; after: { trace_id?: string; span_id?: string } };
    assert.deepEqual(out.before, {}, 'no span before tracing started');
    assert.match(out.after.trace_id ?? '', /^[0-9a-f]{32}$/, 'a span of its own after');
    assert.match(out.after.span_id ?? '', /^[0-9a-f]{16}$/);
  });

  it('redacts the configured secrets and leaves error messages out of a span\'s name, attributes, events and status', () => {
    const apiKey = 'ak-5ecret-8f14e45f';
    const key = newKeyEntry('k1');
    const secrets = secretsFromEnv({ TEMPORAL_API_KEY: apiKey, ENCRYPTION_KEYS: key, DATABASE_URL: 'postgres://u:Pw-5ecret-d41d8cd9@h/db' });
    const span = {
      name: `GET ${apiKey}`,
      attributes: { 'db.connection_string': 'postgres://u:Pw-5ecret-d41d8cd9@h/db', 'job.id': 'payment:p1' },
      events: [{ name: 'exception', time: [0, 0], attributes: { 'exception.type': 'process-payment:unknown-account', 'exception.message': 'account "bob" does not exist', 'exception.stacktrace': `Error: key ${key.split(':')[1]} and account "bob"\n    at f (x.ts:1:1)` } }],
      status: { code: 2, message: `account "bob" does not exist, ${apiKey}` },
    } as unknown as ReadableSpan;
    const out = JSON.stringify(redactSpan(span, secrets));
    for (const secret of [apiKey, key.split(':')[1]!, 'Pw-5ecret-d41d8cd9', '"bob"', 'bob']) assert.ok(!out.includes(secret), `no ${secret} in ${out}`);
    assert.match(out, /process-payment:unknown-account/, 'the error type stays');
    assert.match(out, /at f \(x\.ts:1:1\)/, 'the stack frames stay');
    assert.match(out, /payment:p1/);
  });

  it('cuts the query strings of URLs and keeps span names on one line', () => {
    const span = {
      name: 'pg.query:\n  jobs',
      attributes: { 'url.full': 'http://127.0.0.1:8099/records?source=src-secret&cursor=CUR-1', 'url.query': 'source=src-secret&cursor=CUR-1', 'http.url': 'http://h/p?q=v#frag', 'url.path': '/records' },
      events: [],
      status: { code: 0 },
    } as unknown as ReadableSpan;
    const out = redactSpan(span, []);
    assert.equal(out.name, 'pg.query: jobs');
    assert.deepEqual(out.attributes, { 'url.full': 'http://127.0.0.1:8099/records', 'http.url': 'http://h/p', 'url.path': '/records' });
  });

  it('drops the object-valued attributes the SDK\'s workflow exporter copies from WorkflowInfo (memo, priority…), keeping identifiers', () => {
    const span = {
      name: 'RunWorkflow:x',
      attributes: { workflowId: 'payment:p1', attempt: 1, memo: { error: 'account "bob"' }, priority: { fairnessKey: 'acme' }, tags: ['a', 'b'], unsafe: { isReplaying: false } },
      events: [],
      status: { code: 0 },
    } as unknown as ReadableSpan;
    assert.deepEqual(redactSpan(span, []).attributes, { workflowId: 'payment:p1', attempt: 1, tags: ['a', 'b'] });
  });

  it('a bad OTEL_EXPORTER_OTLP_PROTOCOL fails the worker with its message and exit 1, and jobctl with exit 2, not an uncaught stack trace', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_EXPORTER_OTLP_PROTOCOL: 'bogus', TEMPORAL_ADDRESS: '127.0.0.1:9', METRICS: 'false' };
    delete env.OTEL_SDK_DISABLED;
    delete env.OTEL_TRACES_EXPORTER;
    delete env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL;
    const run = (args: string[]) => spawnSync(process.execPath, args, { cwd: repoRoot, env, encoding: 'utf8', timeout: 30_000 });
    for (const [args, code] of [[['dist/worker/main.js'], 1], [['bin/jobctl.js', 'status', 'some-id'], 2]] as const) {
      const ran = run([...args]);
      assert.equal(ran.status, code, `${args.join(' ')}: ${ran.stderr}`);
      assert.match(ran.stderr, /OTEL_EXPORTER_OTLP_PROTOCOL: unknown OTLP protocol "bogus"/);
      assert.doesNotMatch(ran.stderr, /^\s+at |Node\.js v\d/m, `${args.join(' ')} prints no stack trace`);
    }
  });

  it('a JobClient traces by default in a process whose own OpenTelemetry SDK registered a tracer provider, without OTEL_* variables', () => {
    const script = (register: boolean) => `
      ${register ? "require('@opentelemetry/api').trace.setGlobalTracerProvider(new (require('@opentelemetry/sdk-trace-base').BasicTracerProvider)());" : ''}
      const { clientTracingInterceptors } = require('./src/client/tracing');
      process.stdout.write(JSON.stringify({ byDefault: clientTracingInterceptors(undefined)?.length ?? 0, off: clientTracingInterceptors(false)?.length ?? 0 }));`;
    const env = { ...process.env };
    for (const k of Object.keys(env)) if (k.startsWith('OTEL_')) delete env[k];
    const run = (register: boolean) => JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', '-e', script(register)], { cwd: repoRoot, env, encoding: 'utf8' })) as { byDefault: number; off: number };
    assert.deepEqual(run(true), { byDefault: 1, off: 0 });
    assert.deepEqual(run(false), { byDefault: 0, off: 0 });
  });

  it('logs a failing export as a warning naming the target, once a minute, and goes on', () => {
    const script = `
      const { startTracing } = require('./src/worker/tracing');
      const { traced } = require('./src/shared/traced');
      let warned = false;
      const write = process.stderr.write.bind(process.stderr);
      process.stderr.write = (chunk, ...rest) => ((warned ||= String(chunk).includes('tracing:export-failed')), write(chunk, ...rest));
      startTracing();
      (async () => {
        // Spaced past the 50 ms schedule delay, so that each span leaves in an export of its own.
        for (let i = 0; i < 5; i++) {
          await traced('x' + i, {}, async () => 1);
          await new Promise((r) => setTimeout(r, 400));
        }
        // Not before the first failure was reported, however slow its export.
        for (let i = 0; i < 200 && !warned; i++) await new Promise((r) => setTimeout(r, 100));
        process.exit(0);
      })();`;
    const env: NodeJS.ProcessEnv = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_EXPORTER_OTLP_TIMEOUT: '500' };
    for (const k of ['OTEL_SDK_DISABLED', 'OTEL_TRACES_EXPORTER', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL']) delete env[k];
    const ran = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: repoRoot, env, encoding: 'utf8', timeout: 30_000 });
    assert.equal(ran.status, 0, ran.stderr);
    const warnings = ran.stderr.split('\n').filter((l) => l.includes('tracing:export-failed'));
    assert.equal(warnings.length, 1, `one warning for five failed exports in 2 s:\n${ran.stderr}`);
    assert.match(warnings[0]!, /OTLP http\/protobuf to http:\/\/127\.0\.0\.1:9/);
  });
});
