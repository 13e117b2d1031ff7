import { spawn, execFile, type ChildProcess } from 'node:child_process';

/** A free TCP port on loopback. */
export { freePort } from '../../src/shared/net';

/** Result of a finished command. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion, never throwing on a non-zero exit. */
export function runCommand(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env, cwd?: string): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env, cwd, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs a command to completion with `input` on its standard input. */
export function runCommandWithInput(cmd: string, args: string[], input: string | Buffer, env: NodeJS.ProcessEnv = process.env): Promise<Ran> {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { env, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
    child.stdin!.end(input);
  });
}

/** A long-running process whose output is collected. */
export interface Started {
  child: ChildProcess;
  output: () => string;
  /** Resolves when the output contains `text`; rejects if the process exits first or time runs out. */
  waitFor: (text: string, timeoutMs?: number) => Promise<void>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/** Spawns a process and collects its stdout and stderr. */
export function startProcess(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string): Started {
  const child = spawn(cmd, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitFor = (text: string, timeoutMs = 120_000) =>
    new Promise<void>((resolve, reject) => {
      const deadline = Date.now() + timeoutMs;
      const tick = () => {
        if (out.includes(text)) return resolve();
        if (child.exitCode !== null) return reject(new Error(`process exited (${child.exitCode}) before printing "${text}":\n${out}`));
        if (Date.now() > deadline) return reject(new Error(`timed out waiting for "${text}":\n${out}`));
        setTimeout(tick, 100);
      };
      tick();
    });
  return { child, output: () => out, waitFor, exited };
}
