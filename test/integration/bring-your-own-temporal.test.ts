import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Worker } from '@temporalio/worker';
import { JobClient } from '../../src/client/job-client';
import { catalog } from '../../src/jobs/catalog';
import type { DoctorReport } from '../../src/jobctl/doctor';
import { loadConfig, type Config } from '../../src/shared/config';
import { ensureSearchAttributes } from '../../src/shared/ensure-search-attributes';
import { MissingSearchAttributeError } from '../../src/shared/missing-search-attribute';
import { worker as builtInWorker } from '../../src/app/worker';
import { createWorker } from '../../src/worker/create-worker';
import { startBareTemporal, type BareTemporal } from '../helpers/bare-temporal';
import { repoRoot, uniqueId } from '../helpers/env';
import { freePort, runCommand } from '../helpers/processes';

const jobctl = path.join(repoRoot, 'bin/jobctl.js');
const namespace = 'acme-jobs';
const createCommand = `temporal operator search-attribute create --namespace ${namespace} --name JobType --type Keyword`;
const cloudCommand = `tcld namespace search-attributes add --namespace ${namespace} --search-attribute "JobType=Keyword"`;

/** Runs every worker until `until` settles, then shuts them down; resolves to its value. */
async function runWorkersUntil<R>(workers: Worker[], until: Promise<R>): Promise<R> {
  const [result] = await Promise.all(workers.map((w) => w.runUntil(until)));
  return result as R;
}

// A Temporal that a user brings: `temporal server start-dev` without `--search-attribute`, on a
// namespace other than `default`. The tests run in order: the server starts bare, and the first
// worker registers JobType on it.
describe('bring your own Temporal: a server without the JobType search attribute', function () {
  this.timeout(240_000);
  let server: BareTemporal;
  let connection: Connection;
  let config: Config;
  const taskQueue = uniqueId('byo');
  const key = `k1:${randomBytes(32).toString('base64')}`;
  const ctl = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
    runCommand(process.execPath, [jobctl, ...args], {
      ...process.env,
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
      ENCRYPTION_KEYS: undefined,
      ENCRYPTION_KEY_FILE: undefined,
      ...extra,
    });
  const customAttributes = async (ns: string) => (await connection.operatorService.listSearchAttributes({ namespace: ns })).customAttributes ?? {};

  before(async () => {
    server = await startBareTemporal(namespace);
    connection = await Connection.connect({ address: server.address });
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'byo-'));
    config = loadConfig({ temporalAddress: server.address, namespace, taskQueue, dataDir, encryptionKeys: key }, {});
  });
  after(async () => {
    await connection?.close();
    await server?.stop();
  });

  it('jobctl enqueue and schedule create exit 1 naming the attribute, its type, the namespace and the commands; JobClient throws MissingSearchAttributeError', async () => {
    assert.deepEqual(await customAttributes(namespace), {}, 'the server starts bare');
    for (const args of [['enqueue', 'noop', '{}'], ['schedule', 'create', 'noop', '{}', '--every', '1h']]) {
      const ran = await ctl(args);
      assert.equal(ran.code, 1, `${args.join(' ')}: ${ran.stderr}`);
      assert.equal(ran.stdout, '');
      assert.match(ran.stderr, /^jobs:missing-search-attribute: the search attribute JobType \(Keyword\) is not registered on namespace "acme-jobs", so jobs cannot be started there/);
      assert.ok(ran.stderr.includes(createCommand) && ran.stderr.includes(cloudCommand), ran.stderr);
      assert.doesNotMatch(ran.stderr, /^\s+at /m, 'no stack trace');
    }
    // Reading by type needs the attribute too: list --type and stats name it the same way.
    for (const args of [['list', '--type', 'noop'], ['stats']]) {
      const ran = await ctl(args);
      assert.equal(ran.code, 1, `${args.join(' ')}: ${ran.stderr}`);
      assert.match(ran.stderr, /^jobs:missing-search-attribute: the search attribute JobType \(Keyword\) is not registered on namespace "acme-jobs"/, `${args.join(' ')}: ${ran.stderr}`);
    }
    const jobs = await JobClient.connect({ catalog, temporalAddress: server.address, namespace, taskQueue });
    try {
      await assert.rejects(jobs.enqueue('noop', {}), (err: unknown) => {
        assert.ok(err instanceof MissingSearchAttributeError);
        assert.deepEqual([err.attribute, err.attributeType, err.namespace, err.reason], ['JobType', 'Keyword', namespace, 'not-registered']);
        // What the server said (Temporal 1.29, SQL visibility), kept as the cause's cause.
        assert.match(String((err.cause as Error).cause), /INVALID_ARGUMENT: Namespace acme-jobs has no mapping defined for search attribute JobType/);
        return true;
      });
    } finally {
      await jobs.close();
    }
  });

  it('jobctl doctor reports FAIL for the attribute and the shared queue, and exits 1', async () => {
    const text = await ctl(['doctor']);
    assert.equal(text.code, 1, text.stdout + text.stderr);
    assert.match(text.stdout, /^ok {4}server: 127\.0\.0\.1:\d+ answers; Temporal \d+\.\d+\.\d+$/m);
    assert.match(text.stdout, /^ok {4}namespace acme-jobs: exists; retention 1d /m);
    assert.match(text.stdout, /^FAIL {2}search attribute JobType: not registered on namespace "acme-jobs"/m);
    assert.ok(text.stdout.includes(createCommand) && text.stdout.includes(cloudCommand), text.stdout);
    assert.match(text.stdout, new RegExp(`^FAIL {2}task queue ${taskQueue} \\(shared\\): no worker polled it`, 'm'));
    assert.match(text.stderr, /2 check\(s\) FAIL/);

    const json = await ctl(['doctor', '--json']);
    assert.equal(json.code, 1);
    const report = JSON.parse(json.stdout) as DoctorReport;
    assert.equal(report.ok, false);
    const status = Object.fromEntries(report.checks.map((c) => [c.name, c.status]));
    assert.deepEqual(status, {
      server: 'ok',
      'namespace acme-jobs': 'ok',
      'search attribute JobType': 'FAIL',
      [`task queue ${taskQueue} (shared)`]: 'FAIL',
      [`task queue ${taskQueue}:email`]: 'warn',
      // send-email's steps run on the smtp dependency's queue: no worker polls it either.
      [`task queue ${taskQueue}:dependency:smtp`]: 'warn',
      'encryption keys': 'warn',
      // A plain start-dev: 4 partitions per queue, so the built-in types' fairness keys are inexact at best.
      'flow control': 'warn',
    });

    const noNamespace = await ctl(['doctor'], { TEMPORAL_NAMESPACE: 'no-such-namespace' });
    assert.equal(noNamespace.code, 1);
    assert.match(noNamespace.stdout, /^FAIL {2}namespace no-such-namespace: does not exist\n {6}fix: create it \(temporal operator namespace create --namespace no-such-namespace\)/m);
    const unreachable = await ctl(['doctor', '--json'], { TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` });
    assert.equal(unreachable.code, 1);
    assert.deepEqual((JSON.parse(unreachable.stdout) as DoctorReport).checks.map((c) => [c.name, c.status]), [['server', 'FAIL']]);
  });

  it('createWorker registers JobType and waits until it is listed; then enqueue works and a noop job completes; a second start registers nothing', async () => {
    const created = await createWorker({ ...builtInWorker, config });
    try {
      assert.deepEqual(await customAttributes(namespace), { JobType: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD }, 'listed as soon as createWorker returns');
      assert.equal((await customAttributes('default')).JobType, undefined, 'only on the worker\'s namespace');
      const enqueued = await ctl(['enqueue', 'noop', '{}', '--id', uniqueId('noop-ctl')], { ENCRYPTION_KEYS: key });
      assert.equal(enqueued.code, 0, enqueued.stderr);
      const jobs = await JobClient.connect({ catalog, temporalAddress: server.address, namespace, taskQueue, encryptionKeys: key });
      try {
        const { id, handle } = await jobs.enqueue('noop', {});
        await runWorkersUntil(created.workers, Promise.all([handle.result(), jobs.temporal.workflow.getHandle(enqueued.stdout.trim()).result()]));
        assert.equal((await jobs.get(id)).status, 'completed');
      } finally {
        await jobs.close();
      }
    } finally {
      await created.close();
    }
    const again = await createWorker({ ...builtInWorker, config });
    // Workers hold their connection until they have run and shut down.
    await runWorkersUntil(again.workers, Promise.resolve());
    await again.close();
    assert.deepEqual(await ensureSearchAttributes(connection, namespace), { registered: [] }, 'already there: nothing registered');
    assert.deepEqual(Object.keys(await customAttributes(namespace)), ['JobType']);
  });

  it('jobctl doctor is ok and exits 0 with a worker running; a missing key is a warning that names it', async () => {
    const created = await createWorker({ ...builtInWorker, config });
    try {
      const [withKey, withoutKey] = await runWorkersUntil(created.workers, (async () => {
        // Only once the queue's pollers are in: the doctor must not race the workers' first poll.
        const jobs = await JobClient.connect({ catalog, temporalAddress: server.address, namespace, taskQueue, encryptionKeys: key });
        try {
          await (await jobs.enqueue('noop', {})).handle.result();
        } finally {
          await jobs.close();
        }
        return [await ctl(['doctor'], { ENCRYPTION_KEYS: key }), await ctl(['doctor', '--json'])];
      })());
      assert.equal(withKey.code, 0, withKey.stdout + withKey.stderr);
      assert.equal(withKey.stderr, '');
      // Every check passes but one warning: this bare server does not do what the built-in types'
      // fairness keys need, and doctor says so, with the line that starts one that does.
      const lines = withKey.stdout.trim().split('\n').filter((l) => !/^ {6}/.test(l));
      assert.deepEqual(lines.filter((l) => !/^ok {4}/.test(l)).map((l) => l.slice(0, 24)), ['warn  flow control: fair'], withKey.stdout);
      assert.match(withKey.stdout, /^warn {2}flow control: fairness unknown, priority order unknown, 4 partition\(s\): task queue \S+ has 4 partitions/m);
      assert.match(withKey.stdout, /^ {13}temporal server start-dev --dynamic-config-value matching\.useNewMatcher=true /m);
      assert.match(withKey.stdout, /^ok {4}search attribute JobType: registered as Keyword$/m);
      assert.match(withKey.stdout, new RegExp(`^ok {4}task queue ${taskQueue} \\(shared\\): \\d+ poller\\(s\\)`, 'm'));
      assert.match(withKey.stdout, new RegExp(`^ok {4}task queue ${taskQueue}:email: \\d+ poller\\(s\\)`, 'm'));
      assert.match(withKey.stdout, /^ok {4}encryption keys: the newest job \(noop-[^)]+\) decodes \(encrypted with key "k1"\)$/m);

      assert.equal(withoutKey.code, 0, 'a key this process lacks does not stop the deployment');
      const report = JSON.parse(withoutKey.stdout) as DoctorReport;
      assert.equal(report.ok, true);
      const keys = report.checks.find((c) => c.name === 'encryption keys');
      assert.equal(keys?.status, 'warn');
      assert.match(keys?.detail ?? '', /jobs:codec-unknown-key: a payload is encrypted with key "k1", and no keys are configured/);
    } finally {
      await created.close();
    }
  });

  it('createWorker names a namespace the server lacks (TEMPORAL_NAMESPACE) and a server it cannot reach (jobs:unreachable)', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'byo-ns-'));
    const noSuch = loadConfig({ temporalAddress: server.address, namespace: 'no-such-namespace', taskQueue, dataDir }, {});
    await assert.rejects(createWorker({ ...builtInWorker, config: noSuch }), /TEMPORAL_NAMESPACE: the server at .* has no namespace "no-such-namespace": create it \(temporal operator namespace create --namespace no-such-namespace\)/);
    const down = loadConfig({ temporalAddress: `127.0.0.1:${await freePort()}`, namespace, taskQueue, dataDir }, {});
    await assert.rejects(createWorker({ ...builtInWorker, config: down }), /^UnreachableError: jobs:unreachable: cannot reach Temporal at 127\.0\.0\.1:\d+/);
  });
});
