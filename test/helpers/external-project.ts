import { execFile } from 'node:child_process';
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { repoRoot } from './env';

/** The external project's sources (copied, never built in place). */
export const externalProjectFixture = path.join(repoRoot, 'test/fixtures/external-project');

/** Result of a finished command. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  /** Wall time, in ms. */
  ms: number;
}

/**
 * The environment without npm's own variables: `npm test` exports `npm_config_*` and
 * `npm_package_*` describing this repository, which an npm run inside the other project would read.
 */
export function envWithoutNpm(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  return { ...env, ...extra };
}

/** Runs a command to completion within `timeoutMs` (then it is killed and `code` is non-zero); never throws on a non-zero exit. */
export function sh(cmd: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number }): Promise<Ran> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd: options.cwd, env: options.env ?? envWithoutNpm(), timeout: options.timeoutMs, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr: err?.killed ? `${stderr}\n(killed after ${options.timeoutMs} ms)` : stderr, ms: Date.now() - started });
    });
  });
}

/** One file of `npm pack --json`. */
export interface PackedFile {
  path: string;
  size: number;
}

/** What `npm pack --json` reports about the tarball it wrote. */
export interface Packed {
  filename: string;
  /** The tarball's size, in bytes. */
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: PackedFile[];
}

/**
 * `npm pack` of this repository into `dir`. npm runs `prepare` (the build) first, so the tarball
 * holds what the sources build to now, as a publish would.
 */
export async function packRepository(dir: string): Promise<{ tarball: string; packed: Packed; ran: Ran }> {
  const ran = await sh('npm', ['pack', '--json', '--pack-destination', dir], { cwd: repoRoot, timeoutMs: 300_000 });
  if (ran.code !== 0) throw new Error(`npm pack failed (${ran.code}):\n${ran.stderr}`);
  // Lifecycle scripts print to stdout too; the JSON report is the last thing on it.
  const [packed] = JSON.parse(ran.stdout.slice(ran.stdout.indexOf('[\n'))) as Packed[];
  if (!packed) throw new Error(`npm pack printed no report:\n${ran.stdout}`);
  return { tarball: path.join(dir, packed.filename), packed, ran };
}

/**
 * The packages the external project installs next to the tarball, at the versions this repository
 * pins (its own toolchain), so that npm's cache from the repository's install serves them.
 */
export async function projectDependencies(names: readonly string[] = ['typescript', 'zod', '@types/node', 'kysely', '@temporalio/workflow', 'better-sqlite3', '@temporalio/testing']): Promise<string[]> {
  const pkg = JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
  const pinned = { ...pkg.dependencies, ...pkg.devDependencies };
  return names.map((name) => {
    const version = pinned[name];
    if (!version || !/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`package.json pins no exact version of ${name}`);
    return `${name}@${version}`;
  });
}

/**
 * Copies the fixture to `dir` and installs the tarball and the project's own dependencies into it,
 * as a team would: the README's peers, better-sqlite3 for its ledger, @temporalio/testing for its test.
 */
export async function createExternalProject(dir: string, tarball: string): Promise<Ran> {
  await cp(externalProjectFixture, dir, { recursive: true });
  const deps = await projectDependencies();
  // better-sqlite3 compiles from source where its prebuilt binary cannot be fetched: a minute or two.
  const ran = await sh('npm', ['install', tarball, ...deps, '--save-exact', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: dir, timeoutMs: 600_000 });
  if (ran.code !== 0) throw new Error(`npm install in ${dir} failed (${ran.code}):\n${ran.stderr}`);
  return ran;
}

/**
 * Type-checks the project with every `@ts-expect-error` of `file` removed, and returns the lines of
 * `file` the compiler then reports, next to the lines those directives stood above: each directive
 * must stand above a real error, not merely be tolerated.
 */
export async function expectedTypeErrors(project: string, file: string): Promise<{ expected: number[]; reported: number[]; output: string }> {
  const full = path.join(project, file);
  const source = await readFile(full, 'utf8');
  const lines = source.split('\n');
  // 1-based line numbers of the code under each directive.
  const expected = lines.flatMap((line, i) => (/^\s*\/\/ @ts-expect-error\b/.test(line) ? [i + 2] : []));
  try {
    // Blanked, not removed, so the line numbers stay.
    await writeFile(full, lines.map((line) => (/^\s*\/\/ @ts-expect-error\b/.test(line) ? '' : line)).join('\n'));
    const ran = await sh(path.join(project, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json', '--noEmit'], { cwd: project, timeoutMs: 180_000 });
    const output = ran.stdout + ran.stderr;
    const escaped = file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    const reported = [...new Set([...output.matchAll(new RegExp(`^${escaped}\\((\\d+),\\d+\\): error`, 'gm'))].map((m) => Number(m[1])))];
    return { expected, reported, output };
  } finally {
    await writeFile(full, source);
  }
}
