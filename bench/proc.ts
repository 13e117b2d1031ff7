import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/** Clock ticks per second of /proc's CPU times. */
const ticksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU and memory of one process, read from /proc (Linux). */
export interface ProcSample {
  /** User plus system CPU time since the process started, in seconds. */
  cpuSeconds: number;
  /** Resident set size now, in bytes. */
  rssBytes: number;
  /** Peak resident set size (VmHWM), in bytes. */
  peakRssBytes: number;
}

/** Reads a process's CPU time and memory; undefined when it is gone or /proc is unavailable. */
export async function sampleProcess(pid: number | undefined): Promise<ProcSample | undefined> {
  if (pid === undefined) return undefined;
  try {
    const [stat, status] = await Promise.all([readFile(`/proc/${pid}/stat`, 'utf8'), readFile(`/proc/${pid}/status`, 'utf8')]);
    const cpuSeconds = cpuSecondsOfStat(stat);
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    return { cpuSeconds, rssBytes: kb('VmRSS'), peakRssBytes: kb('VmHWM') };
  } catch {
    return undefined;
  }
}

/** User plus system CPU seconds in a process's or thread's /proc `stat` line. */
export function cpuSecondsOfStat(stat: string): number {
  // The command name (field 2) may contain spaces: fields are counted after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/** CPU seconds this process (the bench's client) has used so far. */
export function ownCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}
