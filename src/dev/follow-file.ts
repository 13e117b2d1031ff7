// Follows a file another process appends to, passing on what it writes: the dev server's error
// log. Its stderr goes to a file, not a pipe to `npm start`: a Go program writing to a pipe whose
// reader is gone dies of SIGPIPE, so a dev server left behind by a killed `npm start` would die at
// its next error line, at a moment of its own choosing, instead of staying until the guard or the
// next start stops it (src/dev/leftover-dev-server.ts).
import { closeSync, openSync, readSync } from 'node:fs';

export interface FollowedFile {
  /** Reads what was appended since the last read (call it once the writer has exited, for its last words). */
  poll(): void;
  /** Reads the rest and stops following. */
  stop(): void;
}

/** Follows `file` from its start, handing each new chunk to `onChunk`, every `everyMs`. */
export function followFile(file: string, onChunk: (chunk: Buffer) => void, everyMs = 200): FollowedFile {
  const fd = openSync(file, 'r');
  const buffer = Buffer.alloc(64 * 1024);
  let position = 0;
  let open = true;
  const poll = () => {
    if (!open) return;
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, position);
      if (n <= 0) return;
      position += n;
      onChunk(Buffer.from(buffer.subarray(0, n)));
    }
  };
  const timer = setInterval(poll, everyMs);
  timer.unref();
  return {
    poll,
    stop() {
      poll();
      clearInterval(timer);
      if (open) closeSync(fd);
      open = false;
    },
  };
}
