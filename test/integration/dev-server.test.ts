import assert from 'node:assert/strict';
import { mkdtemp, readdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { outboxFileFor } from '../../src/activities/email';
import { provisionTemporalCli } from '../../src/provision/temporal-cli';
import { loadConfig } from '../../src/shared/config';
import { repoRoot, uniqueId } from '../helpers/env';
import { artifactsDir, historyRows, saveScreenshot, shows, withPage } from '../helpers/browser';
import { isListening as listening } from '../../src/shared/net';
import { startOnFreePorts } from '../helpers/npm-start';
import { freePort, runCommand, runCommandWithInput, startProcess, type Started } from '../helpers/processes';
import { until } from '../helpers/worker-process';

const isListening = (port: number) => listening('127.0.0.1', port);
const jobctl = path.join(repoRoot, 'bin/jobctl.js');
/** The Web UI's page of the first job, kept after the run (named in the README). */
const webUiScreenshot = path.join(artifactsDir, 'web-ui-job.png');
const payload = JSON.stringify({ to: 'grace@example.com', subject: 'Integration', body: 'Hello from the dev server', userId: 'u-int' });

// Boots the system the way `npm start` does (built output, embedded dev server, SQLite file) and
// drives it from the outside: jobctl for jobs, the temporal CLI for visibility.
describe('npm start against a real Temporal dev server', function () {
  this.timeout(300_000);
  let env: NodeJS.ProcessEnv;
  let dataDir: string;
  let grpcPort: number;
  let uiPort: number;
  let temporalCli: string;
  let system: Started | undefined;

  before(async () => {
    const config = loadConfig();
    temporalCli = (await provisionTemporalCli({ cacheDir: config.cacheDir, temporalCliPath: config.temporalCliPath })).value;
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'durable-jobs-it-'));
    grpcPort = await freePort();
    uiPort = await freePort();
    env = {
      ...process.env,
      TEMPORAL_ADDRESS: undefined,
      // Tracing off, whatever the shell running the tests set: the banner says so.
      OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
      DATA_DIR: dataDir,
      DEV_SERVER_PORT: String(grpcPort),
      DEV_SERVER_UI_PORT: String(uiPort),
      DEV_SERVER_HTTP_PORT: String(await freePort()),
      TEMPORAL_TASK_QUEUE: uniqueId('it'),
      // Never the default 9464: other workers on this machine may serve it.
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: String(await freePort()),
      CONSOLE_PORT: String(await freePort()),
    };
  });

  afterEach(async () => {
    if (system && system.child.exitCode === null) {
      system.child.kill('SIGTERM');
      await system.exited;
    }
  });

  // Each start on ports picked free then (startOnFreePorts); the tests read them from env.
  const start = async () => {
    system = await startOnFreePorts(env, ['DEV_SERVER_PORT', 'DEV_SERVER_UI_PORT', 'DEV_SERVER_HTTP_PORT', 'METRICS_PORT', 'CONSOLE_PORT']);
    grpcPort = Number(env.DEV_SERVER_PORT);
    uiPort = Number(env.DEV_SERVER_UI_PORT);
    return system;
  };
  const ctl = (...args: string[]) => runCommand(process.execPath, [jobctl, ...args], { ...env, TEMPORAL_ADDRESS: `127.0.0.1:${grpcPort}` });

  it('runs jobs enqueued with jobctl and the example client script, shows one in `temporal workflow list` and the Web UI, and keeps it across a restart', async () => {
    const running = await start();
    assert.match(running.output(), new RegExp(`Web UI: +http://127.0.0.1:${uiPort}`));
    assert.ok(await isListening(uiPort), 'the Web UI answers');
    assert.match(running.output(), new RegExp(`Metrics: +http://127.0.0.1:${env.METRICS_PORT}/metrics`));
    assert.match(running.output(), /Tracing: +off \(set OTEL_EXPORTER_OTLP_ENDPOINT/);
    assert.match(await (await fetch(`http://127.0.0.1:${env.METRICS_PORT}/metrics`)).text(), /^temporal_/m, 'the worker serves metrics');
    assert.match(running.output(), new RegExp(`Console: +http://127.0.0.1:${env.CONSOLE_PORT} \\(loopback, no accounts`));
    assert.match(await (await fetch(`http://127.0.0.1:${env.CONSOLE_PORT}/`)).text(), /<h1>Overview<\/h1>/, 'the console serves its overview');

    const id = uniqueId('it-job');
    const enqueued = await ctl('enqueue', 'send-email', payload, '--id', id);
    assert.equal(enqueued.code, 0, enqueued.stderr);
    assert.equal(enqueued.stdout.trim(), id);

    const result = await ctl('result', id);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(JSON.parse(result.stdout).messageId, `<${id}@durable-jobs>`);
    assert.deepEqual(await readdir(path.join(dataDir, 'outbox')), [outboxFileFor(id)]);

    const listed = await runCommand(temporalCli, ['workflow', 'list', '--address', `127.0.0.1:${grpcPort}`, '--query', `WorkflowId = '${id}'`, '-o', 'json']);
    assert.equal(listed.code, 0, listed.stderr);
    const rows = JSON.parse(listed.stdout) as { execution: { workflowId: string; runId: string }; type: { name: string }; status: string }[];
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.type.name, 'sendEmailWorkflow');
    assert.match(String(rows[0]!.status), /COMPLETED/);

    // The job's own event history, row by row: not text a menu or an error page could also hold.
    const pageUrl = `http://127.0.0.1:${uiPort}/namespaces/default/workflows/${encodeURIComponent(id)}`;
    const history = await withPage(pageUrl, async (page) => {
      const rows = await historyRows(page, 'Workflow Execution Completed');
      await saveScreenshot(page, webUiScreenshot);
      return rows;
    });
    const runId = rows[0]!.execution.runId;
    assert.ok(history.length >= 5, `the Web UI shows the job's event history (rows: ${JSON.stringify(history)})`);
    for (const row of history) assert.equal(row.href, `/namespaces/default/workflows/${encodeURIComponent(id)}/${runId}/history/events/${row.eventId}`, 'every row is an event of this job');
    const event = (type: string) => {
      const found = history.find((r) => r.eventType === type);
      assert.ok(found, `the history has a ${type} event (types: ${history.map((r) => r.eventType).join(', ')})`);
      return found;
    };
    const started = event('Workflow Execution Started');
    const scheduled = event('Activity Task Scheduled');
    const attempt = event('Activity Task Started');
    const done = event('Activity Task Completed');
    const completed = event('Workflow Execution Completed');
    assert.deepEqual([started, scheduled, attempt, done, completed].map((r) => r.eventId), [started, scheduled, attempt, done, completed].map((r) => r.eventId).sort((a, b) => a - b), 'in this order');
    assert.match(started.details, /sendEmailWorkflow/);
    assert.match(scheduled.details, /Activity Type sendEmail\b/);
    assert.match(attempt.details, /Attempt 1\b/);
    // The table previews a result's first characters; each must be the start of the job's result.
    const resultText = `Result ${JSON.stringify(JSON.parse(result.stdout))}`;
    for (const row of [done, completed]) {
      const preview = row.details.replace(/(\.\.\.|…)$/, '');
      assert.ok(preview.length >= `Result {"messageId":"<${id}`.length && resultText.startsWith(preview), `${row.eventType} shows the result ${resultText}: ${row.details}`);
    }
    assert.ok((await stat(webUiScreenshot)).size > 10_000, `a screenshot of the page is kept at ${webUiScreenshot}`);

    const script = await runCommand(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'examples/enqueue-email.ts'), 'lin@example.com'], { ...env, TEMPORAL_ADDRESS: `127.0.0.1:${grpcPort}` });
    assert.equal(script.code, 0, script.stderr);
    assert.match(script.stdout, /enqueued welcome:lin@example.com/);
    assert.equal(JSON.parse(script.stdout.slice(script.stdout.indexOf('{'))).status, 'completed', 'the example client script sees its job complete');

    running.child.kill('SIGTERM');
    assert.equal(await running.exited, 0, running.output());
    assert.equal(await isListening(grpcPort), false, 'the dev server stopped with the worker');
    assert.equal(await isListening(uiPort), false, 'the Web UI stopped with the worker');

    await start();
    const status = await ctl('status', id, '--json');
    assert.equal(status.code, 0, status.stderr);
    const record = JSON.parse(status.stdout);
    assert.equal(record.status, 'completed', 'the job survived the restart in the SQLite file');
    assert.equal(record.type, 'send-email');
    assert.equal(record.attempts, 1);
    // A newcomer's jobctl, with npm start's defaults and no TEMPORAL_ADDRESS, reads over the dev server's HTTP API: the same record.
    assert.deepEqual(JSON.parse((await runCommand(process.execPath, [jobctl, 'status', id, '--json'], { ...env, TEMPORAL_ADDRESS: undefined, DEV_SERVER_PORT: String(await freePort()) })).stdout), record);
  });

  it('refuses to start a second dev server on ports in use, and with TEMPORAL_ADDRESS set starts only a worker', async () => {
    await start();
    const clash = startProcess(process.execPath, [path.join(repoRoot, 'dist/dev/start.js')], { ...env, METRICS_PORT: String(await freePort()) }, repoRoot);
    assert.equal(await clash.exited, 1);
    assert.match(clash.output(), new RegExp(`127.0.0.1:${grpcPort} is already in use .*DEV_SERVER_PORT.*TEMPORAL_ADDRESS`));

    // A console port chosen and taken is a clear refusal too (an unchosen one moves to a free port).
    const consoleClash = startProcess(process.execPath, [path.join(repoRoot, 'dist/dev/start.js')], { ...env, TEMPORAL_ADDRESS: `127.0.0.1:${grpcPort}`, METRICS_PORT: String(await freePort()) }, repoRoot);
    assert.equal(await consoleClash.exited, 1);
    assert.match(consoleClash.output(), new RegExp(`CONSOLE_PORT: ${env.CONSOLE_PORT} is already in use`));

    const taskQueue = uniqueId('remote');
    const workerOnly = startProcess(process.execPath, [path.join(repoRoot, 'dist/dev/start.js')], {
      ...env,
      TEMPORAL_ADDRESS: `127.0.0.1:${grpcPort}`,
      TEMPORAL_TASK_QUEUE: taskQueue,
      // A healthy job's job:completed is a debug line.
      LOG_LEVEL: 'debug',
      DEV_SERVER_PORT: String(await freePort()),
      METRICS_PORT: String(await freePort()),
      CONSOLE_PORT: String(await freePort()),
    }, repoRoot);
    try {
      await workerOnly.waitFor('Stop: ');
      assert.doesNotMatch(workerOnly.output(), /dev-server:started/);
      assert.match(workerOnly.output(), new RegExp(`running against Temporal at 127.0.0.1:${grpcPort}`));
      const id = uniqueId('remote-job');
      const remoteEnv = { ...env, TEMPORAL_ADDRESS: `127.0.0.1:${grpcPort}`, TEMPORAL_TASK_QUEUE: taskQueue };
      const enqueued = await runCommand(process.execPath, [jobctl, 'enqueue', 'send-email', payload, '--id', id], remoteEnv);
      assert.equal(enqueued.code, 0, enqueued.stderr);
      const result = await runCommand(process.execPath, [jobctl, 'result', id], remoteEnv);
      assert.equal(result.code, 0, result.stderr);
      // The workflow's log lines reach the worker's stdout through the SDK's logger a moment after
      // the result is recorded.
      const completed = new RegExp(`"workflowId":"${id}".*"msg":"job:completed"`);
      await until('the worker logs job:completed', () => completed.test(workerOnly.output()), 30_000).catch(() => undefined);
      assert.match(workerOnly.output(), completed);
    } finally {
      workerOnly.child.kill('SIGINT');
      assert.equal(await workerOnly.exited, 0, workerOnly.output());
    }
  });

  it('jobctl enqueue reads the payload from standard input given -, also one too long for a command line', async () => {
    await start();
    const ctlEnv = { ...env, TEMPORAL_ADDRESS: `127.0.0.1:${grpcPort}` };
    const id = uniqueId('stdin-job');
    const big = JSON.stringify({ to: 'ada@example.com', subject: 'Big', body: 'x'.repeat(99_000) + '€'.repeat(1000), userId: 'u1' });
    assert.ok(Buffer.byteLength(big) > 100_000);
    const enqueued = await runCommandWithInput(process.execPath, [jobctl, 'enqueue', 'send-email', '-', '--id', id], big, ctlEnv);
    assert.equal(enqueued.code, 0, enqueued.stderr);
    assert.equal(enqueued.stdout.trim(), id);
    const status = await ctl('status', id, '--json');
    assert.equal(status.code, 0, status.stderr);
    assert.equal(JSON.parse(status.stdout).payload.body.length, 100_000);
    const bad = await runCommandWithInput(process.execPath, [jobctl, 'enqueue', 'send-email', '-'], JSON.stringify({ to: 'nobody', subject: 'x', body: 'y', userId: 'u' }), ctlEnv);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /jobs:invalid-payload: .*payload\.to: must be a valid email address/);
    const notJson = await runCommandWithInput(process.execPath, [jobctl, 'enqueue', 'send-email', '-'], '{"to":', ctlEnv);
    assert.equal(notJson.code, 2);
    assert.match(notJson.stderr, /payload-json: not valid JSON/);
    const empty = await runCommandWithInput(process.execPath, [jobctl, 'enqueue', 'send-email', '-'], '', ctlEnv);
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /payload-json: standard input was empty/);
    const notUtf8 = await runCommandWithInput(process.execPath, [jobctl, 'enqueue', 'send-email', '-'], Buffer.from('{"to":"a@b.co","subject":"x","body":"b\xff\xfe","userId":"u"}', 'latin1'), ctlEnv);
    assert.equal(notUtf8.code, 2);
    assert.match(notUtf8.stderr, /payload-json: standard input is not valid UTF-8/);
    const bom = await runCommandWithInput(process.execPath, [jobctl, 'enqueue', 'noop', '-'], '\uFEFF{}', ctlEnv);
    assert.equal(bom.code, 0, bom.stderr);
  });

  it('jobctl exits 2 with a message naming the field for a bad payload, and 1 when Temporal is unreachable', async () => {
    const bad = await ctl('enqueue', 'send-email', JSON.stringify({ to: 'nobody', subject: 'x', body: 'y', userId: 'u' }));
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /jobs:invalid-payload: .*payload\.to: must be a valid email address/);
    const down = await runCommand(process.execPath, [jobctl, 'status', 'whatever'], { ...env, TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` });
    assert.equal(down.code, 1);
    assert.match(down.stderr, /jobs:unreachable: cannot reach Temporal/);
  });
  it('runs a payment that fails for good through compensation, the DLQ and a patched redrive, with jobctl list, cancel and dlq', async () => {
    await start();
    const paymentId = uniqueId('it-pay');
    const id = `payment:${paymentId}`;
    const pay = JSON.stringify({ paymentId, fromAccount: 'alice', toAccount: 'nobody', amount: 1250, currency: 'EUR' });
    const enqueued = await ctl('enqueue', 'process-payment', pay);
    assert.equal(enqueued.code, 0, enqueued.stderr);
    assert.equal(enqueued.stdout.trim(), id, 'the job ID defaults to payment:<paymentId>');
    const conflict = await ctl('enqueue', 'process-payment', pay.replace('1250', '1300'));
    assert.equal(conflict.code, 2);
    assert.match(conflict.stderr, new RegExp(`jobs:id-conflict: job ID "${id}" is already used by a job with a different payload`));
    const failed = await ctl('result', id);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /process-payment:unknown-account/);

    const status = JSON.parse((await ctl('status', id, '--json')).stdout);
    assert.equal(status.status, 'failed');
    assert.equal(status.step, 'capture');
    assert.deepEqual(status.compensation, { status: 'done', undone: ['reserve'] });

    const listed = JSON.parse((await ctl('dlq', 'list', '--type', 'process-payment', '--json')).stdout) as { id: string; status: string; error: { type: string } }[];
    assert.deepEqual(listed.filter((e) => e.id === id).map((e) => [e.status, e.error.type]), [['dead-lettered', 'process-payment:unknown-account']]);
    const groups = await ctl('dlq', 'groups');
    assert.equal(groups.code, 0, groups.stderr);
    assert.match(groups.stdout, /process-payment:unknown-account/);

    const badPatch = await ctl('dlq', 'redrive', id, '--patch', '{"amount":-5}');
    assert.equal(badPatch.code, 2);
    assert.match(badPatch.stderr, /payload\.amount/);
    const dry = await ctl('dlq', 'redrive', '--all', '--dry-run');
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /dry run: would redrive/);
    const plan = await ctl('dlq', 'redrive', id, '--dry-run');
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stdout, /^ {2}reserve +done, then undone by compensation: it will run again$/m, 'the step plan from npm start\'s ledger');
    assert.match(plan.stdout, /^ {2}capture +not recorded as done: it will run$/m);
    const redriven = await ctl('dlq', 'redrive', id, '--patch', '{"toAccount":"bob"}', '--reason', 'typo in account');
    assert.equal(redriven.code, 0, redriven.stderr);
    assert.match(redriven.stdout, /redriven \(run /);
    const done = await ctl('result', id);
    assert.equal(done.code, 0, done.stderr);
    assert.equal(JSON.parse(done.stdout).toAccount, 'bob');

    const shown = JSON.parse((await ctl('dlq', 'show', id, '--json')).stdout) as { status: string; audit: { action: string; detail?: string; patch?: unknown }[] };
    assert.equal(shown.status, 'redriven');
    assert.deepEqual(shown.audit.at(-1), { ...shown.audit.at(-1), action: 'redrive', detail: 'typo in account', patch: { toAccount: 'bob' } });

    // Visibility is eventually consistent: give it a moment to index the redriven run.
    let rows: { id: string; status: string }[] = [];
    for (let i = 0; i < 50 && !rows.some((r) => r.id === id && r.status === 'completed'); i++) {
      rows = JSON.parse((await ctl('list', '--type', 'process-payment', '--json')).stdout);
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.deepEqual(rows.filter((r) => r.id === id).map((r) => r.status), ['completed'], 'one row per job: its latest run');

    for (const op of [['redrive', id], ['discard', id]]) {
      const again = await ctl('dlq', ...op);
      assert.equal(again.code, 2, `dlq ${op[0]} of a redriven entry: ${again.stderr}`);
      assert.match(again.stderr, /jobs:dlq-invalid-state: .*redriven, not dead-lettered/);
    }

    const cancelDone = await ctl('cancel', id);
    assert.equal(cancelDone.code, 1);
    assert.match(cancelDone.stderr, /jobs:job-closed: .*already completed/);
    const missing = await ctl('dlq', 'show', uniqueId('nobody'));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /jobs:dlq-entry-not-found/);

    const summary = 'pay 12.50 EUR alice → bob';
    const summaryShown = await withPage(`http://127.0.0.1:${uiPort}/namespaces/default/workflows/${encodeURIComponent(id)}`, (page) => shows(page, summary));
    assert.ok(summaryShown, `the Web UI shows the job summary "${summary}"`);

    const later = uniqueId('later');
    assert.equal((await ctl('enqueue', 'send-email', payload, '--id', later, '--delay', '1h')).code, 0);
    const started = Date.now();
    const waited = await ctl('result', later, '--timeout', '1s');
    assert.equal(waited.code, 1);
    assert.match(waited.stderr, new RegExp(`job ${later} did not finish within 1s`));
    assert.ok(Date.now() - started < 15_000, 'gave up after the timeout, not after the job');
    assert.equal((await ctl('result', later, '--timeout', 'soon')).code, 2);
    const badId = await ctl('enqueue', 'send-email', payload, '--id', 'has space');
    assert.equal(badId.code, 2);
    assert.match(badId.stderr, /jobs:invalid-option: invalid options: id: must be 1 to 200 characters/);
  });

  it('after npm start and its dev server guard are killed with SIGKILL, the next start replaces the dev server they left behind', async () => {
    const first = await start();
    // The guard would stop the server within seconds of npm start's death (start-signals.test.ts);
    // killing both at once (as a kill of everything the user owns would) leaves the pid file to do it.
    const children = await runCommand('ps', ['-o', 'pid=,args=', '--ppid', String(first.child.pid)]);
    const guard = children.stdout.split('\n').find((line) => line.includes('durable-jobs-dev-server-guard'));
    assert.ok(guard, `npm start runs a dev server guard:\n${children.stdout}`);
    process.kill(Number(guard.trim().split(/\s+/)[0]), 'SIGKILL');
    first.child.kill('SIGKILL');
    await first.exited;
    assert.ok(await isListening(grpcPort), 'the dev server outlived the killed npm start');
    const second = await start();
    assert.match(second.output(), /stopped the dev server \(pid \d+\) that an earlier, killed npm start left running/);
    const id = uniqueId('after-kill');
    const enqueued = await ctl('enqueue', 'send-email', payload, '--id', id);
    assert.equal(enqueued.code, 0, enqueued.stderr);
    assert.equal((await ctl('result', id)).code, 0);
  });
});
