import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { cpuSecondsOfStat } from './proc';

/** The preload that notes a worker's JavaScript threads (bench/thread-probe.cjs). */
export const threadProbe = path.join(__dirname, 'thread-probe.cjs');

/** A worker process's CPU seconds by the kind of thread that spent them. */
export interface ThreadCpu {
  /** The main thread: the SDK's worker loop, activities, the connection's JavaScript side. */
  main: number;
  /** Worker threads: the SDK's workflow thread(s), where every job's workflow code runs (and tsx's loader, idle once modules are loaded). */
  workflow: number;
  /** Every other thread: the SDK's Rust core (gRPC, its runtime), V8's GC and compiler helpers, libuv. */
  native: number;
}

/** CPU seconds of each of a process's threads so far, by thread ID. */
export type ThreadSample = Map<string, number>;

/** Reads every thread's CPU time of a process; undefined when it is gone or /proc is unavailable. */
export async function sampleThreads(pid: number | undefined): Promise<ThreadSample | undefined> {
  if (pid === undefined) return undefined;
  try {
    const tids = await readdir(`/proc/${pid}/task`);
    const sample: ThreadSample = new Map();
    await Promise.all(tids.map(async (tid) => {
      const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => undefined);
      if (stat) sample.set(tid, cpuSecondsOfStat(stat));
    }));
    return sample;
  } catch {
    return undefined;
  }
}

/**
 * What each kind of thread spent between two samples; `probeFile` lists the worker threads'
 * IDs (bench/thread-probe.cjs). A thread that ended in between is left out (none does in a run).
 */
export async function threadCpuBetween(pid: number | undefined, before: ThreadSample | undefined, after: ThreadSample | undefined, probeFile: string): Promise<ThreadCpu | null> {
  if (pid === undefined || !before || !after) return null;
  const workers = new Set((await readFile(probeFile, 'utf8').catch(() => '')).split('\n').filter(Boolean));
  if (workers.size === 0) return null;
  const spent: ThreadCpu = { main: 0, workflow: 0, native: 0 };
  for (const [tid, cpu] of after) {
    const delta = cpu - (before.get(tid) ?? 0);
    if (tid === String(pid)) spent.main += delta;
    else if (workers.has(tid)) spent.workflow += delta;
    else spent.native += delta;
  }
  return spent;
}
