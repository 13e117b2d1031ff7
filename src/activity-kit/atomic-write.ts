import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/** Options of {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /**
   * The temporary file, in the same directory as the final one (a rename across file systems is
   * not atomic). @defaultValue `<file>.<pid>.<random>.tmp`
   */
  tmp?: string;
}

/**
 * Writes `data` to `file` so that `file` is either absent or whole: the bytes go to a temporary
 * file beside it, are flushed to the disk (fsync), and the temporary file is renamed over `file`;
 * then the directory is flushed, so the rename survives a power cut. If any step fails (a full
 * disk, a crash of the write), the temporary file is removed and the error thrown: nothing is left
 * under the final name, and no partial file holds on to the space that ran out.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const tmp = options.tmp ?? `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const handle = await open(tmp, 'w');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
  await syncDirectory(path.dirname(file));
}

/** Flushes a directory's entries (the rename). Some file systems refuse to fsync a directory; the rename has happened anyway. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r').catch(() => undefined);
  if (!handle) return;
  try {
    await handle.sync();
  } catch {
    // EINVAL/EISDIR on file systems without directory fsync: nothing more to do.
  } finally {
    await handle.close();
  }
}
