import assert from 'node:assert/strict';
import { lstat, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { provisionTemporalCli } from '../../src/provision/temporal-cli';
import { loadConfig } from '../../src/shared/config';
import { waitForFrontend } from '../../src/shared/wait-for-frontend';
import { repoRoot, uniqueId } from '../helpers/env';
import { createExternalProject, envWithoutNpm, expectedTypeErrors, packRepository, sh, type Packed, type Ran } from '../helpers/external-project';
import { freePort, startProcess, type Started } from '../helpers/processes';
import { startCardProcessor, type CardProcessor } from '../helpers/card-processor';

/**
 * The packed tarball's bound: about 340 KB in 0.2.0 (dist with inline-source maps, bin, docs), 600 KB
 * once the operator console came in (its dist is 440 KB unpacked), 772 KB with tracing, flow control
 * and bulk enqueue and their docs (2026-12-02), 845 KB with jobctl's HTTP reads (their API subset)
 * and 856 KB with the HTTP enqueue and the job and catalog entry points (2026-12-03), 912 KB with
 * the DLQ's history reads, sensitive fields, the flow-control check and their docs (2026-12-05), 966 KB
 * with the job outbox (dist/outbox, its migration, the relay) and its guide (2026-12-06), 1,016 KB
 * with circuit breakers (the breaker's workflow, state, gate and calls, jobctl's and the console's
 * parts) and their guide (2026-12-07). The bound
 * catches what should not ship (tests, fixtures, a stray tarball), which the file checks below name;
 * it grows with the code it ships.
 */
const maxTarballBytes = 1.125 * 1024 * 1024;
/** And unpacked: about 1.15 MB in 0.2.0, 2.1 MB with the console, 3.0 MB with the DLQ's history reads and sensitive fields, 3.3 MB with the job outbox, 3.5 MB with circuit breakers. */
const maxUnpackedBytes = 3.875 * 1024 * 1024;

// The proof that the package works from outside the repository: pack it, install the tarball in a
// project of its own (no workspace link), write a job type there against the public entry points
// only, compile it with the project's own strict tsc, run the project's test on the test kit, and
// run its worker on a dev server driven by the installed jobctl.
describe('the package, installed from its tarball in a project of its own', function () {
  // npm pack builds; npm install compiles better-sqlite3 (no prebuilt binary can be fetched here).
  this.timeout(900_000);
  let work: string;
  let project: string;
  let packed: Packed;
  const timings: Record<string, number> = {};
  const timed = (step: string, ran: Ran) => ((timings[step] = ran.ms), ran);

  before(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'durable-jobs-package-'));
    const pack = await packRepository(work);
    timed('npm pack', pack.ran);
    packed = pack.packed;
    project = path.join(work, 'acme-billing');
    timed('npm install', await createExternalProject(project, pack.tarball));
  });

  after(async () => {
    console.log(`      timings: ${Object.entries(timings).map(([k, ms]) => `${k} ${(ms / 1000).toFixed(1)}s`).join(', ')}`);
    if (work) await rm(work, { recursive: true, force: true });
  });

  it(`packs the built entry points, bin, docs and changelog, nothing of test, bench (nor its notebook), fixtures, deploy, the built-in app, npm start's dev tooling or the cluster's and Jaeger's builds (the kit keeps the CLI's and the test server's), in under ${maxTarballBytes / 1024} KB`, async () => {
    const files = packed.files.map((f) => f.path);
    const pkg = JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8')) as { exports: Record<string, string | Record<string, string>> };
    const targets = Object.values(pkg.exports).flatMap((t) => (typeof t === 'string' ? [t] : Object.values(t))).map((t) => t.replace(/^\.\//, ''));
    for (const f of [...targets, 'bin/jobctl.js', 'README.md', 'CHANGELOG.md', 'docs/guarantees.md', 'dist/workflow-kit/interceptors.js', 'dist/shared/failure-converter.js', 'console-assets/console.css', 'console-assets/console.js']) {
      assert.ok(files.includes(f), `the tarball holds ${f}`);
    }
    for (const entry of ['client', 'catalog', 'worker', 'workflow-kit', 'activity-kit', 'testing']) assert.ok(files.includes(`dist/${entry}/index.d.ts`), `types of ${entry}`);
    for (const alias of ['client', 'job', 'console']) assert.ok(files.includes(`dist/deprecated/${alias}.d.ts`), `types of the deprecated durable-jobs/${alias}`);
    const unwanted = files.filter((f) => /^(test|bench|examples|src|deploy|\.ci|node_modules)\/|fixtures|^docker-compose|^Dockerfile|^dist\/(jobs|workflows|activities|cluster|app|dev)\/|^dist\/provision\/(main|parts|temporal-server|jaeger|go-build)\.|\.d\.ts\.map$|\.tgz$|^docs\/performance\.md$/.test(f));
    assert.deepEqual(unwanted, []);
    assert.ok(packed.size < maxTarballBytes, `tarball ${packed.size} bytes`);
    assert.ok(packed.unpackedSize < maxUnpackedBytes, `unpacked ${packed.unpackedSize} bytes`);
    console.log(`      tarball: ${(packed.size / 1024).toFixed(0)} KB, ${(packed.unpackedSize / 1024).toFixed(0)} KB unpacked, ${packed.entryCount} files`);
  });

  it('installs the tarball itself, not a link, and exposes only its entry points', async () => {
    assert.equal((await lstat(path.join(project, 'node_modules/durable-jobs'))).isSymbolicLink(), false);
    const manifest = JSON.parse(await readFile(path.join(project, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    assert.match(manifest.dependencies['durable-jobs']!, /^file:.*\.tgz$/);
    const resolve = (spec: string) => sh(process.execPath, ['-e', `console.log(require.resolve(${JSON.stringify(spec)}))`], { cwd: project, timeoutMs: 30_000 });
    assert.match((await resolve('durable-jobs/workflow')).stdout, /node_modules\/durable-jobs\/dist\/workflow-kit\/index\.js/);
    const deep = await resolve('durable-jobs/dist/shared/config');
    assert.notEqual(deep.code, 0, 'a path outside the exports map does not resolve');
    assert.match(deep.stderr, /ERR_PACKAGE_PATH_NOT_EXPORTED/);
  });

  it("compiles with the project's own strict tsc", async () => {
    const ran = timed('tsc', await sh(path.join(project, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: project, timeoutMs: 180_000 }));
    assert.equal(ran.code, 0, ran.stdout + ran.stderr);
  });

  it('refuses at compile time an unknown job type, a wrong or missing payload field, and a catalog without its schema', async () => {
    const { expected, reported, output } = await expectedTypeErrors(project, 'src/enqueue-types.ts');
    assert.ok(expected.length >= 7, `the file expects ${expected.length} errors`);
    assert.deepEqual(reported.sort((a, b) => a - b), expected, output);
  });

  it('passes its own test on the test kit (a time-skipping server found in the provisioning cache)', async () => {
    const ran = timed('project test', await sh(process.execPath, ['--test', 'dist/test/charge-subscription.spec.js'], { cwd: project, timeoutMs: 300_000 }));
    assert.equal(ran.code, 0, ran.stdout.split('\n').filter((l) => !l.startsWith('#')).join('\n') + ran.stderr);
    assert.match(ran.stdout, /^# pass 5$/m);
    assert.match(ran.stdout, /^# fail 0$/m);
  });

  describe("on a dev server, with the project's worker and the installed jobctl", () => {
    let server: Started | undefined;
    let worker: Started | undefined;
    let processor: CardProcessor | undefined;
    let env: NodeJS.ProcessEnv;
    const jobctl = (args: string[], cwd = project) => sh(path.join(project, 'node_modules/.bin/jobctl'), args, { cwd, env, timeoutMs: 60_000 });
    const payload = (subscriptionId: string, card: string) => JSON.stringify({ subscriptionId, period: '2026-12', amount: 1999, currency: 'EUR', card });

    before(async () => {
      const config = loadConfig();
      const cli = (await provisionTemporalCli({ cacheDir: config.cacheDir, temporalCliPath: config.temporalCliPath })).value;
      const port = await freePort();
      const address = `127.0.0.1:${port}`;
      server = startProcess(cli, ['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(port), '--namespace', 'default', '--search-attribute', 'JobType=Keyword', '--log-level', 'error'], envWithoutNpm());
      const up = await waitForFrontend(address, { timeoutMs: 60_000, exited: server.exited });
      assert.ok(up.answered, `the dev server answers at ${address}:\n${server.output()}`);
      processor = await startCardProcessor();
      env = envWithoutNpm({ ACME_PROCESSOR_URL: processor.url, TEMPORAL_ADDRESS: address, TEMPORAL_TASK_QUEUE: uniqueId('acme'), DATA_DIR: path.join(work, 'data'), DATABASE_URL: undefined, METRICS: 'false', LOG_FORMAT: 'json' });
      worker = startProcess(process.execPath, ['dist/worker.js'], env, project);
      await worker.waitFor('worker:started', 120_000);
    });

    after(async () => {
      for (const p of [worker, server]) {
        if (!p || p.child.exitCode !== null || p.child.signalCode !== null) continue;
        p.child.kill('SIGTERM');
        const stopped = await Promise.race([p.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 30_000))]);
        if (!stopped) p.child.kill('SIGKILL');
      }
      await processor?.close();
    });

    it('lists the catalog found through package.json, enqueues a valid payload (prints its ID) and refuses an invalid one naming the field (exit 2)', async () => {
      const types = await jobctl(['types']);
      assert.equal(types.code, 0, types.stderr);
      assert.match(types.stdout, /^charge-subscription\s+Charge one period of a subscription/m);
      const ok = await jobctl(['enqueue', 'charge-subscription', payload('sub-ok', 'tok_visa')]);
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(ok.stdout.trim(), 'charge:sub-ok:2026-12', 'the ID derives from the payload (idempotencyKey)');
      const bad = await jobctl(['enqueue', 'charge-subscription', JSON.stringify({ subscriptionId: 'sub-bad', period: '2026-13', amount: 1999, currency: 'EUR', card: 'tok_visa' })]);
      assert.equal(bad.code, 2, bad.stderr);
      assert.match(bad.stderr, /jobs:invalid-payload.*payload\.period: must be a month/);
      const unknown = await jobctl(['enqueue', 'send-email', '{}']);
      assert.equal(unknown.code, 2, unknown.stderr);
      assert.match(unknown.stderr, /jobs:unknown-job-type/);
    });

    it('runs the job to completion and reports it with status', async () => {
      const result = await jobctl(['result', 'charge:sub-ok:2026-12', '--timeout', '60s']);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual({ ...JSON.parse(result.stdout), chargeId: undefined }, { invoiceId: 'sub-ok:2026-12', chargeId: undefined, amount: 1999, currency: 'EUR' });
      const status = await jobctl(['status', 'charge:sub-ok:2026-12', '--json']);
      assert.equal(status.code, 0, status.stderr);
      const record = JSON.parse(status.stdout);
      assert.equal(record.status, 'completed');
      assert.equal(record.type, 'charge-subscription');
      assert.deepEqual([record.attempts, record.maxAttempts, record.step], [1, 4, 'charge']);
    });

    it("waits at least what the processor's 429 Retry-After asks, then charges once under the same idempotency key", async () => {
      const id = 'charge:sub-throttled:2026-12';
      processor!.throttleOnce('sub-throttled', 2);
      assert.equal((await jobctl(['enqueue', 'charge-subscription', payload('sub-throttled', 'tok_visa')])).code, 0);
      const result = await jobctl(['result', id, '--timeout', '60s']);
      assert.equal(result.code, 0, result.stderr);
      const record = JSON.parse((await jobctl(['status', id, '--json'])).stdout);
      assert.deepEqual([record.status, record.attempts], ['completed', 2]);
      const charges = processor!.charges.filter((c) => c.invoiceId === 'sub-throttled:2026-12');
      assert.equal(charges.length, 2, 'the throttled request, then the charge');
      assert.equal(charges[0]!.idempotencyKey, charges[1]!.idempotencyKey, 'the retry is the same charge to the processor');
      // The processor's own clock: the retry came no sooner than its Retry-After (a lower bound only).
      assert.ok(charges[1]!.at - charges[0]!.at >= 1_900, `retried after ${charges[1]!.at - charges[0]!.at} ms, asked 2 s`);
    });

    it('compensates a declined card and dead-letters it; a patched redrive then completes it', async () => {
      const id = 'charge:sub-declined:2026-12';
      assert.equal((await jobctl(['enqueue', 'charge-subscription', payload('sub-declined', 'tok_declined')])).code, 0);
      const failed = await jobctl(['result', id, '--timeout', '60s']);
      assert.equal(failed.code, 1);
      assert.match(failed.stderr, /failed after 1\/4 attempts: acme:card-declined/);
      const record = JSON.parse((await jobctl(['status', id, '--json'])).stdout);
      assert.deepEqual(record.compensation, { status: 'done', undone: ['reserve'] });
      const dlq = await jobctl(['dlq', 'list', '--json']);
      assert.equal(dlq.code, 0, dlq.stderr);
      const [entry] = JSON.parse(dlq.stdout) as { id: string; type: string; status: string; error: { type: string }; payload: { card: string } }[];
      assert.deepEqual([entry?.id, entry?.type, entry?.status, entry?.error.type], [id, 'charge-subscription', 'dead-lettered', 'acme:card-declined']);
      // The type declares its card sensitive: no view shows the token.
      assert.equal(entry?.payload.card, '[sensitive]');
      for (const args of [['status', id], ['status', id, '--json'], ['dlq', 'show', id, '--json'], ['dlq', 'redrive', id, '--dry-run', '--json']]) {
        const shown = await jobctl(args);
        assert.ok(!shown.stdout.includes('tok_declined'), `jobctl ${args.join(' ')} shows the card: ${shown.stdout}`);
      }
      const refused = await jobctl(['dlq', 'redrive', id, '--patch', '{"card":42}']);
      assert.equal(refused.code, 2, 'a patch that fails the schema restarts nothing');
      assert.match(refused.stderr, /payload\.card/);
      const redriven = await jobctl(['dlq', 'redrive', id, '--patch', '{"card":"ok"}']);
      assert.equal(redriven.code, 0, redriven.stderr);
      assert.match(redriven.stdout, new RegExp(`^${id}: redriven \\(run `));
      const done = await jobctl(['result', id, '--timeout', '60s']);
      assert.equal(done.code, 0, done.stderr);
      const after = JSON.parse((await jobctl(['status', id, '--json'])).stdout);
      assert.deepEqual([after.status, after.payload.card], ['completed', '[sensitive]']);
      const audit = JSON.parse((await jobctl(['dlq', 'show', id, '--json'])).stdout).audit as { action: string; patch?: unknown }[];
      assert.deepEqual(audit.at(-1)?.patch, { card: '[sensitive]' }, 'the redrive\'s patch is audited as a change of the card, not its value');
      assert.equal(JSON.parse((await jobctl(['dlq', 'list', '--json'])).stdout).length, 0, 'nothing left dead-lettered');
    });

    it('lists the jobs of the type, and finds the catalog by --catalog from another folder', async () => {
      const listed = await jobctl(['list', '--type', 'charge-subscription', '--json']);
      assert.equal(listed.code, 0, listed.stderr);
      const rows = JSON.parse(listed.stdout) as { id: string; status: string }[];
      assert.deepEqual(rows.map((r) => [r.id, r.status]).sort(), [['charge:sub-declined:2026-12', 'completed'], ['charge:sub-ok:2026-12', 'completed'], ['charge:sub-throttled:2026-12', 'completed']]);
      const elsewhere = await jobctl(['--catalog', path.join(project, 'dist/catalog.js'), 'enqueue', 'charge-subscription', payload('sub-flag', 'tok_visa')], os.tmpdir());
      assert.equal(elsewhere.code, 0, elsewhere.stderr);
      assert.equal(elsewhere.stdout.trim(), 'charge:sub-flag:2026-12');
      const none = await jobctl(['enqueue', 'charge-subscription', payload('sub-none', 'tok_visa')], os.tmpdir());
      assert.equal(none.code, 2, 'without a catalog, enqueue says where to name one');
      assert.match(none.stderr, /--catalog/);
    });
  });
});
