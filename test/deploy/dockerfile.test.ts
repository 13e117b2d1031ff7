import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { loadBuiltInSettings } from '../../src/jobs/settings';
import { loadConfig } from '../../src/shared/config';
import { repoRoot } from '../helpers/env';

// No Docker engine runs here, so "the image's user can write every path the worker writes" is
// checked on the Dockerfile's structure: the final stage must create each such directory and give
// it to the runtime USER, before any VOLUME line (Docker discards later changes to a volume path,
// and seeds a fresh named volume with the image directory's owner).

interface Instruction {
  op: string;
  args: string;
}

/** The instructions of the Dockerfile's last stage, continuation lines joined. */
function finalStage(text: string): Instruction[] {
  const lines = text.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const all = lines.map((l) => {
    const [op, ...rest] = l.split(/\s+/);
    return { op: op!.toUpperCase(), args: rest.join(' ') };
  });
  const from = all.map((i) => i.op).lastIndexOf('FROM');
  return all.slice(from);
}

/** `ENV A=1 B=2` (or the old `ENV A 1`) as a record. */
function envOf(stage: Instruction[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { args } of stage.filter((i) => i.op === 'ENV')) {
    if (!args.includes('=')) {
      const [key, ...value] = args.split(/\s+/);
      env[key!] = value.join(' ');
      continue;
    }
    for (const pair of args.match(/\S+=("[^"]*"|\S*)/g) ?? []) {
      const [key, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
      env[key] = value.replace(/^"|"$/g, '');
    }
  }
  return env;
}

/** Shell commands of the RUN lines before index `before`, each as its words. */
function commandsBefore(stage: Instruction[], before: number): string[][] {
  return stage
    .slice(0, before)
    .filter((i) => i.op === 'RUN')
    .flatMap((i) => i.args.split(/&&|;/))
    .map((c) => c.trim().split(/\s+/));
}

const within = (dir: string, parent: string) => dir === parent || dir.startsWith(`${parent}/`);

const dockerfile = readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8');
const stage = finalStage(dockerfile);
const compose = parse(readFileSync(path.join(repoRoot, 'docker-compose.yml'), 'utf8')) as {
  services: { worker: { environment?: Record<string, string>; volumes?: string[] } };
};
const worker = compose.services.worker;
const userAt = stage.findIndex((i) => i.op === 'USER');
const user = stage[userAt]?.args.split(':')[0] ?? 'root';
const workdir = stage.filter((i) => i.op === 'WORKDIR').at(-1)?.args ?? '/';

/** Every directory the worker writes, per its configuration defaults under the image's and compose's environment. */
function writtenDirs(): string[] {
  // Compose interpolates `${VAR:-default}` from the host; unset on the host, that is the default.
  const composed = Object.fromEntries(Object.entries(worker.environment ?? {}).map(([k, v]) => [k, v.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1')]));
  const env: Record<string, string | undefined> = { ...envOf(stage), ...composed };
  // Relative paths resolve against the image's WORKDIR, not this machine's; `.data` is DATA_DIR's default.
  env.DATA_DIR ??= '.data';
  for (const key of ['DATA_DIR', 'OUTBOX_DIR', 'REPORTS_DIR']) if (env[key]) env[key] = path.posix.resolve(workdir, env[key]);
  const config = loadConfig({}, { ...env, TEMPORAL_ADDRESS: env.TEMPORAL_ADDRESS ?? 'temporal:7233' });
  const builtIn = loadBuiltInSettings(config.dataDir, {}, env);
  const dirs = [config.dataDir, builtIn.outboxDir, builtIn.reportsDir];
  if (!/^postgres(ql)?:\/\//.test(config.databaseUrl)) dirs.push(path.posix.dirname(path.posix.resolve(workdir, config.databaseUrl)));
  return [...new Set(dirs)];
}

describe('Dockerfile (the worker image)', () => {
  it('runs as an unprivileged user', () => {
    assert.ok(userAt > 0, 'the final stage has a USER line');
    assert.notEqual(user, 'root');
    assert.notEqual(user, '0');
  });

  it('lets that user write every path the worker writes: DATA_DIR, the outbox, reports and the SQLite ledger', () => {
    const dirs = writtenDirs();
    assert.ok(dirs.length >= 3, `found ${dirs.join(', ')}`);
    const volumeAt = stage.findIndex((i) => i.op === 'VOLUME');
    const before = volumeAt === -1 ? userAt : Math.min(userAt, volumeAt);
    const commands = commandsBefore(stage, before);
    const made = commands.filter((c) => c[0] === 'mkdir' && c.includes('-p')).flatMap((c) => c.slice(1).filter((a) => !a.startsWith('-')));
    const chowned = commands
      .filter((c) => c[0] === 'chown')
      .map((c) => ({ recursive: c.includes('-R'), owner: c.slice(1).find((a) => !a.startsWith('-'))?.split(':')[0], paths: c.filter((a) => a.startsWith('/')) }));
    for (const dir of dirs) {
      assert.ok(dir.startsWith('/'), `${dir} is absolute in the image (set DATA_DIR)`);
      assert.ok(
        made.some((m) => within(m, dir)),
        `${dir} is created (mkdir -p) before ${volumeAt === -1 ? 'USER' : 'VOLUME and USER'}; found ${made.join(', ') || 'none'}`,
      );
      assert.ok(
        chowned.some((c) => c.owner === user && c.paths.some((p) => p === dir || (c.recursive && within(dir, p)))),
        `${dir} is owned by ${user}, the runtime user`,
      );
    }
  });

  it('declares volumes only on directories it prepared, and compose mounts the worker volumes there', () => {
    const volumeAt = stage.findIndex((i) => i.op === 'VOLUME');
    const dirs = writtenDirs();
    const volumes = volumeAt === -1 ? [] : (JSON.parse(stage[volumeAt]!.args) as string[]);
    for (const volume of volumes) assert.ok(dirs.some((d) => within(d, volume)), `VOLUME ${volume} holds a directory the worker writes`);
    for (const mount of worker.volumes ?? []) {
      const target = mount.split(':')[1]!;
      assert.ok(dirs.some((d) => within(d, target) || within(target, d)), `compose mounts ${target}, a directory the worker writes and the image prepared`);
    }
  });

  it('ships native dependencies built: better-sqlite3 (the default ledger) is never installed with its build script skipped', () => {
    const runtimeInstalls = stage.filter((i) => i.op === 'RUN' && /\bnpm (ci|install)\b/.test(i.args));
    for (const install of runtimeInstalls) assert.doesNotMatch(install.args, /--ignore-scripts/, `the runtime stage's "${install.args}" would leave better-sqlite3 unbuilt`);
    const copiesModules = stage.some((i) => i.op === 'COPY' && /^--from=\S+ \/app\/node_modules /.test(i.args));
    assert.ok(copiesModules || runtimeInstalls.length > 0, 'the runtime stage gets node_modules, built, from the build stage or its own install');
    const build = dockerfile.slice(0, dockerfile.lastIndexOf('\nFROM '));
    if (copiesModules) assert.match(build, /npm ci(?![^\n]*--ignore-scripts)[^\n]*&& npm prune --omit=dev/, 'the build stage installs with scripts, then drops dev dependencies');
  });

  it('puts back, after the prune, every optional peer and nodemailer: what the built-in job types run beyond the library\'s own dependencies', () => {
    const build = dockerfile.slice(0, dockerfile.lastIndexOf('\nFROM ')).replace(/\\\n/g, ' ');
    const install = build.split('\n').find((line) => /npm prune --omit=dev/.test(line));
    assert.ok(install, 'the build stage prunes');
    assert.match(install, /npm prune --omit=dev +&& npm install --no-save --omit=dev (?![^\n]*--ignore-scripts)/, 'then installs, with scripts (better-sqlite3 builds)');
    assert.match(install, /Object\.entries\(p\.peerDependencies\)/, 'every peer, at its pin');
    assert.match(install, /\['nodemailer', p\.devDependencies\.nodemailer\]/, 'nodemailer, at its pin');
  });
});
