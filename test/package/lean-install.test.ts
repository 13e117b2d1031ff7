import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '../helpers/env';
import { packRepository, projectDependencies, sh } from '../helpers/external-project';

/** What `npm query '*'` reports of one installed package. */
interface Installed {
  name: string;
  version: string;
  path: string;
  scripts?: Record<string, string>;
}

/** Packages of optional parts, and of the built-in demo types: none is in a plain install. */
const notInALeanInstall = /^(better-sqlite3|pg|nodemailer|hono|@hono\/node-server|htmx\.org|uplot|@opentelemetry\/.*|@temporalio\/interceptors-opentelemetry|@temporalio\/testing)$/;

// `npm install durable-jobs` with the README's peers, into an empty project: what a team gets before
// it opts into a database, tracing, the console or the test kit; and what using one of those
// without its packages says.
describe('a plain install of the packed tarball (the README’s install line, nothing optional)', function () {
  this.timeout(600_000);
  let work: string;
  let project: string;
  let installed: Installed[];

  before(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'durable-jobs-lean-'));
    const { tarball } = await packRepository(work);
    project = path.join(work, 'plain');
    await mkdir(project);
    await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'plain', version: '1.0.0', private: true, type: 'commonjs' }));
    const peers = await projectDependencies(['zod', 'kysely', '@temporalio/workflow']);
    const ran = await sh('npm', ['install', tarball, ...peers, '--save-exact', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: project, timeoutMs: 480_000 });
    if (ran.code !== 0) throw new Error(`npm install failed (${ran.code}):\n${ran.stderr}`);
    const query = await sh('npm', ['query', '*'], { cwd: project, timeoutMs: 60_000 });
    installed = (JSON.parse(query.stdout) as Installed[]).filter((p) => p.path !== project);
    const size = await sh('du', ['-sk', path.join(project, 'node_modules')], { cwd: project, timeoutMs: 60_000 });
    console.log(`      plain install: ${(ran.ms / 1000).toFixed(1)}s, ${installed.length} packages, ${(Number(size.stdout.split('\t')[0]) / 1024).toFixed(0)} MB in node_modules`);
  });

  after(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('installs no database driver, OpenTelemetry, console server, mail library or test kit', () => {
    assert.deepEqual(installed.map((p) => p.name).filter((name) => notInALeanInstall.test(name)), []);
  });

  it('compiles nothing: no installed package has a native build (binding.gyp) or an install script that runs one', () => {
    const builds = installed.filter((p) => existsSync(path.join(p.path, 'binding.gyp')) || /node-gyp|prebuild|cmake-js/.test(Object.values(p.scripts ?? {}).join(' ')));
    assert.deepEqual(builds.map((p) => p.name), []);
  });

  it('declares each optional part as an optional peer, at the version the repository tests with', async () => {
    const pkg = JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string>; peerDependenciesMeta: Record<string, { optional?: boolean }>; devDependencies: Record<string, string> };
    const optional = Object.keys(pkg.peerDependenciesMeta).filter((name) => pkg.peerDependenciesMeta[name]?.optional);
    assert.ok(optional.includes('better-sqlite3') && optional.includes('pg') && optional.includes('hono') && optional.includes('@opentelemetry/sdk-node'), optional.join(', '));
    for (const name of Object.keys(pkg.peerDependencies)) assert.equal(pkg.peerDependencies[name], pkg.devDependencies[name], `${name}: the peer's version is the one the repository installs`);
  });

  /** Runs `code` with node in the plain project; its exit code and output. */
  const node = (code: string) => sh(process.execPath, ['-e', code], { cwd: project, timeoutMs: 60_000 });

  it('a SQLite or PostgreSQL database without its driver fails with one line naming the package and the install command', async () => {
    const sqlite = await node(`try { require('durable-jobs/worker').openDatabase('jobs.db') } catch (e) { console.log(e.message); process.exit(3) }`);
    assert.equal(sqlite.code, 3, sqlite.stderr);
    assert.equal(sqlite.stdout.trim(), 'jobs:missing-package: a SQLite jobs database needs better-sqlite3, which is not installed: npm install --save-exact better-sqlite3@12.11.1');
    const postgres = await node(`try { require('durable-jobs/worker').openDatabase('postgres://u:p@127.0.0.1:1/db') } catch (e) { console.log(e.message); process.exit(3) }`);
    assert.equal(postgres.code, 3, postgres.stderr);
    assert.match(postgres.stdout.trim(), /^jobs:missing-package: a PostgreSQL jobs database needs pg, which is not installed: npm install --save-exact pg@8\.\d+\.\d+$/);
  });

  it('the console (at its start; at import of the deprecated durable-jobs/console) and the test kit (at import) without their packages fail with one line naming them', async () => {
    const consoleLine = /^jobs:missing-package: the console needs hono, @hono\/node-server, htmx\.org, uplot, which are not installed: npm install --save-exact hono@\S+ @hono\/node-server@\S+ htmx\.org@\S+ uplot@\S+$/;
    const started = await node(`const w = require('durable-jobs/worker'); w.startConsole({}).then(() => process.exit(0), (e) => { console.log(e.message); process.exit(3) })`);
    assert.equal(started.code, 3, started.stderr);
    assert.match(started.stdout.trim(), consoleLine, 'the worker entry point loads without them; startConsole names them');
    const consoleEntry = await node(`try { require('durable-jobs/console') } catch (e) { console.log(e.message); process.exit(3) }`);
    assert.equal(consoleEntry.code, 3, consoleEntry.stderr);
    assert.match(consoleEntry.stdout.trim(), consoleLine);
    const kit = await node(`try { require('durable-jobs/testing') } catch (e) { console.log(e.message); process.exit(3) }`);
    assert.equal(kit.code, 3, kit.stderr);
    assert.match(kit.stdout.trim(), /^jobs:missing-package: the test kit \(durable-jobs\/testing\) needs @temporalio\/testing, which is not installed: npm install --save-exact --save-dev @temporalio\/testing@1\.24\.0$/);
  });

  it('loads every entry point without an optional peer (the test kit and the deprecated console aside), and the 0.2 ones as deprecated aliases', async () => {
    const loaded = await node(`for (const e of ['durable-jobs', 'durable-jobs/catalog', 'durable-jobs/workflow', 'durable-jobs/activity', 'durable-jobs/worker', 'durable-jobs/client', 'durable-jobs/job', 'durable-jobs/eslint']) require(e);
      const ok = [require('durable-jobs/client').JobClient === require('durable-jobs').JobClient, require('durable-jobs/job').defineJob === require('durable-jobs/workflow').defineJob,
        require('durable-jobs/eslint').workflowCodeRules === require('durable-jobs/workflow').workflowCodeRules, require('durable-jobs/workflow').retrySchedule('1s').kind === 'schedule'];
      console.log(JSON.stringify(ok))`);
    assert.equal(loaded.code, 0, loaded.stderr);
    assert.equal(loaded.stdout.trim(), '[true,true,true,true]');
  });

  it('tracing turned on without OpenTelemetry fails the worker’s start with one line naming the packages', async () => {
    const ran = await sh(process.execPath, ['-e', `try { require('durable-jobs/worker').startTracingIfConfigured() } catch (e) { console.log(e.message); process.exit(3) }`], {
      cwd: project,
      env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' },
      timeoutMs: 60_000,
    });
    assert.equal(ran.code, 3, ran.stderr);
    assert.match(ran.stdout.trim(), /^jobs:missing-package: tracing \(.*\) needs @opentelemetry\/api, .*@temporalio\/interceptors-opentelemetry, which are not installed: npm install --save-exact @opentelemetry\/api@1\.9\.0 /);
  });
});
