import assert from 'node:assert/strict';
import os from 'node:os';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { JobClient, stateQueryTimeoutMs } from '../../src/client/job-client';
import type { JobRecord } from '../../src/client/job-record';
import { HttpApi, HttpApiUnavailable } from '../../src/jobctl/http/http-api';
import { HttpJobReader } from '../../src/jobctl/http/http-job-reader';
import { fromJson } from '../../src/jobctl/http/api-messages';
import { httpReadTarget } from '../../src/jobctl/http/http-reads';
import { KeylessCodec } from '../../src/shared/encryption-codec';
import { JobNotFoundError } from '../../src/shared/errors';
import { startDevServerEnv } from '../../src/testing/environment';
import { catalog } from '../../src/jobs/catalog';
import type { TestDb } from '../helpers/db';
import { createTestWorker, repoRoot, startJobsTestEnv, stopJobsTestEnv, uniqueId, type TestWorker } from '../helpers/env';
import { freePort, runCommand } from '../helpers/processes';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp';
import { testActivityDeps, createActivities } from '../helpers/worker';

const jobctl = path.join(repoRoot, 'bin/jobctl.js');
const mail = (to: string) => ({ to, subject: 'Hello', body: 'Hi', userId: 'user-1' });

// jobctl's HTTP reads against a real dev server's HTTP API, each compared with what the SDK's gRPC
// client reads of the same job: the record must be the same, state by state.
describe("job records read over Temporal's HTTP API (real dev server)", function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;
  let testDb: TestDb;
  let smtp: TestSmtpServer;
  let worker: TestWorker;
  let running: Promise<void>;
  let httpAddress: string;
  let api: HttpApi;
  let reader: HttpJobReader;
  let jobs: JobClient;
  const taskQueue = uniqueId('http-reads');
  let smtpAnswer: { code: number; message: string } | undefined;

  before(async () => {
    const httpPort = await freePort();
    httpAddress = `127.0.0.1:${httpPort}`;
    ({ env, bundle, testDb } = await startJobsTestEnv(() => startDevServerEnv({ httpPort })));
    // The mail server's answer, set by each test: a refusal for good (550) fails a job, one for now (451) retries it.
    smtp = await startSmtpServer(() => smtpAnswer);
    worker = await createTestWorker(env, bundle, {
      taskQueue,
      activities: createActivities({ ...testActivityDeps(testDb.db, { reportsDir: os.tmpdir() }), email: { smtpUrl: smtp.url, outboxDir: os.tmpdir(), from: 'jobs@test' } }),
    });
    running = Promise.all(worker.workers.map((w) => w.run())).then(() => undefined);
    jobs = new JobClient(env.client, { catalog, taskQueue });
    api = new HttpApi(httpAddress, 'default');
    reader = new HttpJobReader(api, { payloadCodecs: [new KeylessCodec()], payloadConverter: defaultPayloadConverter }, catalog);
  });
  after(async () => {
    api?.close();
    for (const w of worker?.workers ?? []) if (w.getState() === 'RUNNING') w.shutdown();
    await running;
    await smtp?.close();
    await stopJobsTestEnv({ env, testDb });
  });

  async function until(id: string, done: (r: JobRecord) => boolean, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done(await jobs.get(id))) {
      if (Date.now() > deadline) assert.fail(`job ${id} did not reach the state: ${JSON.stringify(await jobs.get(id))}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /**
   * The HTTP record equals the gRPC one. Read between two gRPC reads that agree, so that a job
   * moving on (a retry starting) between the reads is read again rather than counted as a difference.
   */
  async function sameRecord(id: string): Promise<JobRecord> {
    for (let tries = 0; ; tries++) {
      const before = await jobs.get(id);
      const http = await reader.record(id);
      const after = await jobs.get(id);
      if (!isDeepStrictEqual(before, after) && tries < 5) continue;
      assert.deepEqual(http, before);
      return http;
    }
  }

  it('reads a completed, a retrying, a failed, a scheduled and a cancelled job as the gRPC client does', async () => {
    const completed = await jobs.enqueue('noop', {});
    await until(completed.id, (r) => r.status === 'completed');
    assert.equal((await sameRecord(completed.id)).status, 'completed');

    smtpAnswer = { code: 550, message: 'no such user' };
    const failed = await jobs.enqueue('send-email', mail('reject@example.com'));
    await until(failed.id, (r) => r.status === 'failed');
    const failedRecord = await sameRecord(failed.id);
    assert.equal(failedRecord.error?.type, 'send-email:smtp-rejected');
    assert.ok(failedRecord.failedAt);

    smtpAnswer = { code: 451, message: 'greylisted' };
    const retrying = await jobs.enqueue('send-email', mail('later@example.com'));
    await until(retrying.id, (r) => r.status === 'retrying');
    const retried = await sameRecord(retrying.id);
    assert.equal(retried.error?.type, 'send-email:smtp-transient');

    const scheduled = await jobs.enqueue('noop', {}, { delay: '1h' });
    assert.equal((await sameRecord(scheduled.id)).status, 'scheduled');

    await jobs.cancel(retrying.id);
    await until(retrying.id, (r) => r.status === 'cancelled');
    assert.equal((await sameRecord(retrying.id)).status, 'cancelled');
  });

  it('lists jobs as the gRPC client lists them, by type and status, and follows page tokens', async () => {
    const type = 'noop';
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await jobs.enqueue(type, {})).id);
    for (const id of ids) await until(id, (r) => r.status === 'completed');
    const listing = new JobClient(env.client, { taskQueue });
    for (const options of [{ limit: 1000 }, { type, status: 'completed' as const, limit: 2 }, { status: 'running' as const, limit: 1000 }]) {
      // Visibility settles within a second or so: compare once two gRPC lists agree.
      for (let tries = 0; ; tries++) {
        const before = await listing.list(options);
        const overHttp = await reader.list(options);
        const after = await listing.list(options);
        if (!isDeepStrictEqual(before, after) && tries < 10) continue;
        assert.deepEqual(overHttp, before, JSON.stringify(options));
        break;
      }
    }
    const query = `WorkflowId IN (${ids.map((id) => `'${id}'`).join(', ')})`;
    const seen: string[] = [];
    let token: Uint8Array | undefined;
    do {
      const page = await reader.rows(query, 1, token);
      seen.push(...page.rows.map((r) => r.workflowId));
      token = page.nextPageToken;
    } while (token);
    assert.deepEqual(seen.sort(), [...ids].sort());
  });

  it('reads a running job whose workers do not answer as the gRPC client does, within the query bound', async () => {
    const elsewhere = new JobClient(env.client, { catalog, taskQueue: uniqueId('no-worker') });
    const { id } = await elsewhere.enqueue('noop', {});
    const started = Date.now();
    const record = await reader.record(id);
    // The state query's bound, plus 1.5 s of margin for the reads around it.
    assert.ok(Date.now() - started < stateQueryTimeoutMs + 1500, `took ${Date.now() - started} ms`);
    assert.equal(record.workersNotAnswering, true);
    assert.deepEqual(record, await elsewhere.get(id));
  });

  it('throws JobNotFoundError for an unknown ID', async () => {
    await assert.rejects(reader.record(uniqueId('nope')), JobNotFoundError);
  });

  it("decodes a describe answer into the message the gRPC client decodes, field for field", async () => {
    smtpAnswer = { code: 451, message: 'greylisted' };
    const { id } = await jobs.enqueue('send-email', mail('later@example.com'));
    await until(id, (r) => r.status === 'retrying');
    const grpc = await env.client.workflowService.describeWorkflowExecution({ namespace: 'default', execution: { workflowId: id } });
    const json = await api.request('GET', `workflows/${encodeURIComponent(id)}`);
    const http = fromJson<typeof grpc>('temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse', json);
    const Type = temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse;
    // An empty string is proto3's default, the same as absent: the JSON answer names an empty oneof
    // member (lastIndependentlyAssignedBuildId) that the binary one leaves out.
    const dropEmpty = (v: unknown): unknown =>
      Array.isArray(v) ? v.map(dropEmpty) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).filter(([, x]) => x !== '').map(([k, x]) => [k, dropEmpty(x)])) : v;
    const plain = (m: typeof grpc) => dropEmpty(Type.toObject(Type.fromObject(m), { longs: String, enums: String, bytes: String })) as Record<string, unknown>;
    // The pending workflow task's times can move between the two reads; everything else is the same.
    const stable = (o: Record<string, unknown>) => ({ ...o, pendingWorkflowTask: undefined, workflowExtendedInfo: undefined });
    assert.deepEqual(stable(plain(http)), stable(plain(grpc)));
    await jobs.cancel(id);
  });

  it('jobctl status and result --timeout 0 answer over HTTP alone, the same as over gRPC', async () => {
    const { id } = await jobs.enqueue('noop', {});
    await until(id, (r) => r.status === 'completed');
    const grpcOnly = { ...process.env, TEMPORAL_ADDRESS: env.address };
    // gRPC points at nothing: only the HTTP API can answer.
    const httpOnly = { ...process.env, TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`, TEMPORAL_HTTP_ADDRESS: httpAddress };
    for (const args of [['status', id, '--json'], ['status', id], ['result', id, '--timeout', '0'], ['list', '--status', 'completed', '--json']]) {
      const [overHttp, overGrpc] = [await runCommand(process.execPath, [jobctl, ...args], httpOnly, repoRoot), await runCommand(process.execPath, [jobctl, ...args], grpcOnly, repoRoot)];
      assert.equal(overHttp.code, 0, overHttp.stderr);
      assert.equal(overHttp.stdout, overGrpc.stdout, args.join(' '));
    }
    // A job that failed: result --timeout 0 says why, over HTTP as over gRPC.
    smtpAnswer = { code: 550, message: 'no such user' };
    const failed = (await jobs.enqueue('send-email', mail('reject@example.com'))).id;
    await until(failed, (r) => r.status === 'failed');
    const [failedOverHttp, failedOverGrpc] = [await runCommand(process.execPath, [jobctl, 'result', failed, '--timeout', '0'], httpOnly, repoRoot), await runCommand(process.execPath, [jobctl, 'result', failed, '--timeout', '0'], grpcOnly, repoRoot)];
    assert.equal(failedOverHttp.code, 1);
    assert.match(failedOverHttp.stderr, new RegExp(`job ${failed} failed after 1/6 attempts: send-email:smtp-rejected`));
    assert.equal(failedOverHttp.stderr, failedOverGrpc.stderr);
    // Every character a job ID may hold but "/" travels in the HTTP API's paths; an ID with a "/" is read over gRPC.
    const special = (await jobs.enqueue('noop', {}, { id: `${uniqueId('odd')}:a@b+c=d.e_f-g` })).id;
    const slashed = (await jobs.enqueue('noop', {}, { id: `${uniqueId('tenant')}/orders/42` })).id;
    for (const odd of [special, slashed]) await until(odd, (r) => r.status === 'completed');
    const overHttpAlone = await runCommand(process.execPath, [jobctl, 'status', special, '--json'], httpOnly, repoRoot);
    assert.equal(overHttpAlone.code, 0, overHttpAlone.stderr);
    assert.deepEqual(JSON.parse(overHttpAlone.stdout), await jobs.get(special));
    await assert.rejects(reader.record(slashed), HttpApiUnavailable);
    const both = { ...grpcOnly, TEMPORAL_HTTP_ADDRESS: httpAddress };
    const slashedStatus = await runCommand(process.execPath, [jobctl, 'status', slashed, '--json'], both, repoRoot);
    assert.equal(slashedStatus.code, 0, slashedStatus.stderr);
    assert.deepEqual(JSON.parse(slashedStatus.stdout), await jobs.get(slashed));
    const unknown = await runCommand(process.execPath, [jobctl, 'status', 'no-such-job'], httpOnly, repoRoot);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /jobs:job-not-found: no job with id "no-such-job"/);
  });

  it('jobctl falls back to gRPC when nothing answers at the HTTP address or the server refuses otherwise than "no such job", and reads over gRPC under TLS or encryption settings', async () => {
    const { id } = await jobs.enqueue('noop', {});
    await until(id, (r) => r.status === 'completed');
    const fallback = await runCommand(process.execPath, [jobctl, 'status', id, '--json'], { ...process.env, TEMPORAL_ADDRESS: env.address, TEMPORAL_HTTP_ADDRESS: `127.0.0.1:${await freePort()}` }, repoRoot);
    assert.equal(fallback.code, 0, fallback.stderr);
    assert.equal(JSON.parse(fallback.stdout).status, 'completed');
    // A refusal other than "no such workflow" (here a namespace that does not exist) is said as over gRPC, not as an unknown job.
    const namespaced = (http: boolean) => ({ ...process.env, TEMPORAL_ADDRESS: env.address, TEMPORAL_NAMESPACE: 'no-such-namespace', TEMPORAL_HTTP_ADDRESS: http ? httpAddress : undefined });
    const [wrongOverHttp, wrongOverGrpc] = [await runCommand(process.execPath, [jobctl, 'status', id], namespaced(true), repoRoot), await runCommand(process.execPath, [jobctl, 'status', id], namespaced(false), repoRoot)];
    // It is a bad setting (exit 2), named as the worker names it.
    assert.equal(wrongOverHttp.code, 2);
    assert.match(wrongOverHttp.stderr, /TEMPORAL_NAMESPACE: the Temporal server has no namespace "no-such-namespace": create it/);
    assert.equal(wrongOverHttp.stderr, wrongOverGrpc.stderr);
    const listed = await runCommand(process.execPath, [jobctl, 'list'], namespaced(false), repoRoot);
    assert.equal(listed.code, 2);
    assert.equal(listed.stderr, wrongOverGrpc.stderr, 'list says it as status does');
    // A bad setting is named as over gRPC (exit 2), though the HTTP reads do not use it.
    const badSetting = { ...process.env, TEMPORAL_ADDRESS: env.address, TEMPORAL_HTTP_ADDRESS: httpAddress, LOG_LEVEL: 'bogus' };
    const [badOverHttp, badOverGrpc] = [await runCommand(process.execPath, [jobctl, 'list'], badSetting, repoRoot), await runCommand(process.execPath, [jobctl, 'list'], { ...badSetting, TEMPORAL_HTTP_ADDRESS: undefined }, repoRoot)];
    assert.equal(badOverHttp.code, 2, badOverHttp.stderr);
    assert.match(badOverHttp.stderr, /LOG_LEVEL/);
    assert.equal(badOverHttp.stderr, badOverGrpc.stderr);
    // A server that answers 200 with JSON but is not Temporal's API is no answer: list reads over gRPC, not an empty list.
    const impostor = http.createServer((_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    try {
      const impostorEnv = { ...process.env, TEMPORAL_ADDRESS: env.address, TEMPORAL_HTTP_ADDRESS: `127.0.0.1:${(impostor.address() as AddressInfo).port}` };
      const listed = await runCommand(process.execPath, [jobctl, 'list', '--status', 'completed', '--json'], impostorEnv, repoRoot);
      assert.equal(listed.code, 0, listed.stderr);
      assert.ok(JSON.parse(listed.stdout).some((j: { id: string }) => j.id === id), 'the list came from the real server');
    } finally {
      impostor.close();
    }
    assert.deepEqual(httpReadTarget({ TEMPORAL_HTTP_ADDRESS: httpAddress }), { address: httpAddress, namespace: 'default' });
    assert.deepEqual(httpReadTarget({}), { address: '127.0.0.1:7243', namespace: 'default' });
    assert.equal(httpReadTarget({ TEMPORAL_ADDRESS: 'temporal:7233' }), undefined);
    // A dev server on another port than the default: its HTTP port only when given, never the default's (another server's?).
    assert.equal(httpReadTarget({ DEV_SERVER_PORT: '17233' }), undefined);
    assert.deepEqual(httpReadTarget({ DEV_SERVER_PORT: '17233', DEV_SERVER_HTTP_PORT: '17243' }), { address: '127.0.0.1:17243', namespace: 'default' });
    assert.deepEqual(httpReadTarget({ DEV_SERVER_HTTP_PORT: '17243' }), { address: '127.0.0.1:17243', namespace: 'default' });
    for (const name of ['TEMPORAL_API_KEY', 'TEMPORAL_TLS_CERT', 'ENCRYPTION_KEYS', 'ENCRYPTION_KEY_FILE']) assert.equal(httpReadTarget({ TEMPORAL_HTTP_ADDRESS: httpAddress, [name]: 'x' }), undefined, name);
    assert.equal(httpReadTarget({ TEMPORAL_HTTP_ADDRESS: 'no-port' }), undefined);
    assert.equal(httpReadTarget({ TEMPORAL_HTTP_ADDRESS: 'host:70000' }), undefined);
  });
});
