// `npm test` and `npm run test:<lane>`: provisions what the chosen lanes need, runs each lane in its
// own mocha process as soon as its binaries are ready (at most TEST_LANES_PARALLEL at once), prefixes
// every output line with its lane, and ends with each lane's result and time, the slowest files, and
// the total in the line CI reads ("mocha: N passed, N failed, N skipped").
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { provisionPartNames, type ProvisionPart } from '../../src/provision/parts';
import { lanes, type Lane } from './lanes';

const repoRoot = path.resolve(__dirname, '../..');
/** The parts provisioned first, alone: most lanes wait for them. The rest are built together afterwards. */
const firstParts: ProvisionPart[] = ['cli', 'test-server'];

interface LaneResult {
  lane: Lane;
  code: number;
  seconds: number;
  passes: number;
  failures: number;
  pending: number;
  files: Record<string, number>;
  /** Its failed tests, repeated at the end of the output, where CI's tail shows them. */
  failed: FailedTest[];
  why?: string;
}

interface FailedTest {
  title: string;
  file?: string;
  error: string;
}

function usage(to: NodeJS.WriteStream = process.stderr): void {
  to.write(
    'usage: npm test [-- LANE...]   (or npm run test:LANE; tsx test/lanes/run.ts [LANE...])\n' +
      'Runs the named lanes, or all of them, at most TEST_LANES_PARALLEL (default 2) at a time:\n' +
      lanes.map((lane) => `  ${lane.name.padEnd(12)} ${lane.summary}\n`).join(''),
  );
}

function refuse(problem: string): never {
  process.stderr.write(`${problem}\n`);
  usage();
  process.exit(2);
}

function parseParallel(): number {
  const raw = process.env.TEST_LANES_PARALLEL;
  if (raw === undefined || raw === '') return 2;
  if (!/^[1-9][0-9]*$/.test(raw)) {
    process.stderr.write(`TEST_LANES_PARALLEL must be a whole number of lanes, 1 or more (got '${raw}')\n`);
    process.exit(2);
  }
  return Number(raw);
}

// Lanes run in process groups of their own (so that a lane's servers stop with it): when this
// runner ends early (Ctrl-C, a closed terminal, a closed output pipe), it stops them.
const children = new Set<number>();
const scratch: string[] = [];
function stopChildren(): void {
  for (const pid of children) {
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
}
process.on('exit', () => {
  stopChildren();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => process.exit(130));
// `npm test | head`: once nobody reads the output, stop everything instead of crashing on EPIPE.
process.stdout.on('error', () => process.exit(141));

/** Runs a command in its own process group, each output line prefixed with `[tag] `; resolves with its exit code. */
function runPrefixed(tag: string, command: string, args: string[], env: NodeJS.ProcessEnv, niceness = 0): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: repoRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child.pid!);
    if (niceness > 0 && child.pid !== undefined) os.setPriority(child.pid, niceness);
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => process.stdout.write(`[${tag}] ${line}\n`));
    }
    child.on('error', (err) => {
      process.stdout.write(`[${tag}] could not start ${command}: ${err.message}\n`);
      resolve(1);
    });
    child.on('close', (code, signal) => {
      children.delete(child.pid!);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

/**
 * A folder of `go`, `java` and `mvn` that refuse to run, put first on the unit lane's PATH with an
 * empty cache: a unit test that would provision or start a server fails at once, naming the command.
 */
function unitLaneGuard(): { bin: string; cache: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'unit-lane-'));
  scratch.push(dir);
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  for (const tool of ['go', 'java', 'mvn']) {
    const file = path.join(bin, tool);
    writeFileSync(file, `#!/bin/sh\necho "the unit lane provisions nothing and starts no server, but a test ran: ${tool} $*; move the test to another lane (test/lanes/lanes.ts)" >&2\nexit 1\n`);
    chmodSync(file, 0o755);
  }
  return { bin, cache: path.join(dir, 'cache') };
}

async function runLane(lane: Lane, timesDir: string): Promise<LaneResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, TEST_LANE: lane.name };
  if (lane.needs.length === 0) {
    const guard = unitLaneGuard();
    Object.assign(env, { PATH: `${guard.bin}${path.delimiter}${process.env.PATH}`, DURABLE_JOBS_CACHE_DIR: guard.cache });
  }
  const started = Date.now();
  // A lane of many short files runs in shards, mocha processes side by side, each file in one.
  const count = Math.min(lane.shards ?? 1, lane.files.length);
  const shards = Array.from({ length: count }, (_, i) => lane.files.filter((_, k) => k % count === i));
  process.stdout.write(`[${lane.name}] lane started: ${lane.files.length} files${shards.length > 1 ? ` in ${shards.length} mocha processes` : ''}\n`);
  const ran = await Promise.all(
    shards.map(async (files, i) => {
      const timesFile = path.join(timesDir, `${lane.name}-${i}.json`);
      const code = await runPrefixed(lane.name, process.execPath, [require.resolve('mocha/bin/mocha.js'), ...files], { ...env, TEST_TIMES_FILE: timesFile });
      try {
        return { code, ...(JSON.parse(readFileSync(timesFile, 'utf8')) as Pick<LaneResult, 'passes' | 'failures' | 'pending' | 'files' | 'failed'>) };
      } catch {
        return { code: code || 1, passes: 0, failures: 0, pending: 0, files: {}, failed: [], why: 'mocha ended before its summary' };
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  const why = ran.map((r) => ('why' in r ? r.why : undefined)).find((w) => w !== undefined);
  return {
    lane,
    code: ran.find((r) => r.code !== 0)?.code ?? 0,
    seconds,
    passes: ran.reduce((n, r) => n + r.passes, 0),
    failures: ran.reduce((n, r) => n + r.failures, 0),
    pending: ran.reduce((n, r) => n + r.pending, 0),
    files: Object.assign({}, ...ran.map((r) => r.files)) as Record<string, number>,
    failed: ran.flatMap((r) => r.failed ?? []),
    ...(why !== undefined ? { why } : {}),
  };
}

async function main(): Promise<void> {
  const names = process.argv.slice(2);
  if (names.includes('--help') || names.includes('-h')) {
    usage(process.stdout);
    process.exit(0);
  }
  const options = names.filter((name) => name.startsWith('-'));
  if (options.length > 0) refuse(`unknown option ${options.map((n) => `'${n}'`).join(', ')}: the lanes take no options (one file: npx mocha FILE, CONTRIBUTING.md)`);
  const unknown = names.filter((name) => !lanes.some((lane) => lane.name === name));
  if (unknown.length > 0) refuse(`unknown lane ${unknown.map((n) => `'${n}'`).join(', ')}`);
  const parallel = parseParallel();
  const chosen = names.length === 0 ? lanes : lanes.filter((lane) => names.includes(lane.name));
  const needed = provisionPartNames.filter((part) => chosen.some((lane) => lane.needs.includes(part)));
  const started = Date.now();
  const timesDir = mkdtempSync(path.join(os.tmpdir(), 'lane-times-'));
  scratch.push(timesDir);

  // Provisioning in two waves (the CLI and the test server, which most lanes need, first and alone,
  // then the rest side by side); a lane starts once all of its parts are in and a slot is free,
  // the first ready lane in the order of test/lanes/lanes.ts first.
  const settled = new Map<ProvisionPart, number>();
  const results: LaneResult[] = [];
  const waiting = [...chosen];
  let running = 0;
  await new Promise<void>((done) => {
    const next = () => {
      if (waiting.length === 0 && running === 0) return done();
      for (const lane of [...waiting]) {
        if (running >= parallel) break;
        if (!lane.needs.every((part) => settled.has(part))) continue;
        waiting.splice(waiting.indexOf(lane), 1);
        const failed = lane.needs.filter((part) => settled.get(part) !== 0);
        if (failed.length > 0) {
          results.push({ lane, code: 1, seconds: 0, passes: 0, failures: 0, pending: 0, files: {}, failed: [], why: `not run: provisioning ${failed.join(', ')} failed (see the [provision …] lines)` });
          continue;
        }
        running++;
        void runLane(lane, timesDir).then((result) => {
          results.push(result);
          running--;
          next();
        });
      }
      if (waiting.length === 0 && running === 0) done();
    };
    // The second wave builds while lanes run: at a lower priority (its go commands inherit it), so
    // that the tests keep the CPU they need and the builds take what is left.
    const provision = async (parts: ProvisionPart[], niceness: number) => {
      const code = parts.length === 0 ? 0 : await runPrefixed(`provision ${parts.join(',')}`, process.execPath, [path.join(repoRoot, 'dist/provision/main.js'), ...parts], process.env, niceness);
      for (const part of parts) settled.set(part, code);
      next();
    };
    next();
    // The second wave's parts each in a process of their own, so that one that fails (Jaeger) keeps
    // no lane from the others (the cluster's server).
    void provision(needed.filter((part) => firstParts.includes(part)), 0).then(() =>
      Promise.all(needed.filter((part) => !firstParts.includes(part)).map((part) => provision([part], 10))),
    );
  });
  report(results, (Date.now() - started) / 1000, parallel);
  process.exit(results.every((r) => r.code === 0) ? 0 : 1);
}

function report(results: LaneResult[], seconds: number, parallel: number): void {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const sum = (key: 'passes' | 'failures' | 'pending') => results.reduce((n, r) => n + r[key], 0);
  out('');
  out(`${results.length === 1 ? 'lane' : `lanes (${parallel} at a time)`}, ${Math.round(seconds)} s in all:`);
  for (const r of results) {
    const outcome = r.why ?? `${r.passes} passed, ${r.failures} failed, ${r.pending} skipped${r.code !== 0 && r.failures === 0 ? `, exit ${r.code}` : ''}`;
    out(`  ${r.lane.name.padEnd(12)} ${`${Math.round(r.seconds)} s`.padStart(7)}  ${outcome}`);
  }
  const files = results.flatMap((r) => Object.entries(r.files).map(([file, ms]) => ({ file, ms, lane: r.lane.name })));
  out('slowest files:');
  for (const f of files.sort((a, b) => b.ms - a.ms).slice(0, 10)) out(`  ${`${(f.ms / 1000).toFixed(0)} s`.padStart(6)}  ${f.file} (${f.lane})`);
  const failed = results.flatMap((r) => r.failed.map((f) => ({ ...f, lane: r.lane.name })));
  if (failed.length > 0) {
    out('failed (each in full above, under its lane):');
    for (const f of failed) {
      out(`  [${f.lane}] ${f.title}${f.file ? ` (${f.file})` : ''}`);
      for (const line of f.error.split('\n')) out(`      ${line}`);
    }
  }
  out(`mocha: ${sum('passes')} passed, ${sum('failures')} failed, ${sum('pending')} skipped`);
}

void main();
