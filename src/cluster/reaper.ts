import { spawn } from 'node:child_process';

/**
 * Runs `cleanup` (a shell command) once this process is gone, however it ends, even by SIGKILL:
 * a test run that dies must not leave servers holding ports and data folders. The watcher also
 * ends when `whileAlive` (a pid) exits first. Returns a function that cancels it.
 */
export function onParentDeath(cleanup: string, whileAlive?: number): () => void {
  const alive = whileAlive === undefined ? '' : ` && kill -0 ${whileAlive} 2>/dev/null`;
  const script = `while kill -0 ${process.pid} 2>/dev/null${alive}; do sleep 2; done; kill -0 ${process.pid} 2>/dev/null || { ${cleanup}; }`;
  const watcher = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  watcher.unref();
  return () => {
    try {
      watcher.kill('SIGKILL');
    } catch {
      // already gone
    }
  };
}
