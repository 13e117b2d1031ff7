// Progress of a long jobctl operation on standard error: a live bar (cli-progress) on a terminal,
// a plain line every few seconds otherwise (a log, a CI job), so neither looks hung.
import { MultiBar } from 'cli-progress';

/** Where an operation stands. */
export interface ProgressCounts {
  /** Items finished, failed ones included. */
  done: number;
  /** Items that failed. */
  failed: number;
  /** Items in all, when known. */
  total?: number;
  /** Milliseconds since the operation began. */
  elapsedMs: number;
}

/** Options of {@link startProgress}. */
export interface ProgressOptions {
  /** What is being done, e.g. `enqueue send-email`. */
  label: string;
  /** Items in all, when known: gives the bar and the time left. @defaultValue unknown */
  total?: number;
  /** The stream progress goes to. @defaultValue process.stderr */
  stream?: NodeJS.WriteStream;
  /** Milliseconds between two plain lines when the stream is not a terminal. @defaultValue 5000 */
  intervalMs?: number;
}

/** A running progress report. */
export interface Progress {
  /** One item finished. */
  tick(failed?: boolean): void;
  /** Prints a line of the command's output (standard output) without breaking the bar. */
  print(line: string): void;
  /** Ends the report: the bar is drawn a last time and left on screen. */
  stop(): void;
}

/** Seconds as `1h02m`, `3m05s` or `42s`. */
export function formatSeconds(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}

/** The plain progress line: `<label>: 120/1000 done, 2 failed, 12.3/s, about 1m12s left`. */
export function progressLine(label: string, counts: ProgressCounts): string {
  const rate = counts.elapsedMs > 0 ? counts.done / (counts.elapsedMs / 1000) : 0;
  const of = counts.total === undefined ? '' : `/${counts.total}`;
  const left = counts.total !== undefined && rate > 0 ? `, about ${formatSeconds((counts.total - counts.done) / rate)} left` : '';
  return `jobctl: ${label}: ${counts.done}${of} done, ${counts.failed} failed, ${rate.toFixed(1)}/s${left}`;
}

/** Starts a progress report on `stream`: a bar on a terminal, a line every `intervalMs` otherwise. */
export function startProgress(options: ProgressOptions): Progress {
  const stream = options.stream ?? process.stderr;
  const started = Date.now();
  let done = 0;
  let failed = 0;
  const counts = (): ProgressCounts => ({ done, failed, total: options.total, elapsedMs: Date.now() - started });
  if (!stream.isTTY) {
    const timer = setInterval(() => stream.write(`${progressLine(options.label, counts())}\n`), options.intervalMs ?? 5000);
    timer.unref();
    return {
      tick: (f = false) => {
        done += 1;
        if (f) failed += 1;
      },
      print: (line) => console.log(line),
      stop: () => clearInterval(timer),
    };
  }
  const known = options.total !== undefined;
  const bars = new MultiBar({
    stream,
    format: `${options.label} ${known ? '[{bar}] {value}/{total}' : '{value}'} done | {failed} failed | {rate}/s${known ? ' | {eta_formatted} left' : ''}`,
    hideCursor: true,
    etaBuffer: 200,
    fps: 5,
  });
  const bar = bars.create(options.total ?? 0, 0, { failed: 0, rate: '0.0' });
  const payload = () => ({ failed, rate: (done / Math.max(0.001, (Date.now() - started) / 1000)).toFixed(1) });
  return {
    tick: (f = false) => {
      done += 1;
      if (f) failed += 1;
      bar.update(done, payload());
    },
    // On one terminal the line goes above the bar; piped, standard output takes it as it is.
    print: (line) => (process.stdout.isTTY ? bars.log(`${line}\n`) : console.log(line)),
    stop: () => {
      bar.update(done, payload());
      bars.stop();
    },
  };
}
