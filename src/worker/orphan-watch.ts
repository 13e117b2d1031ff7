/**
 * Sends this process SIGTERM, once, when the process that started it dies (e.g. `npm start` or
 * `npm run worker` killed with SIGKILL, which npm cannot pass on): the worker then drains and, under
 * `npm start`, stops its dev server, as on any SIGTERM, instead of running on unseen. A process
 * started by init (a container's entry point) has nothing to watch.
 * @returns a function that stops watching
 */
export function stopWhenOrphaned(intervalMs = 1000, onOrphaned: () => void = () => process.kill(process.pid, 'SIGTERM')): () => void {
  const parent = process.ppid;
  if (parent <= 1) return () => {};
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onOrphaned();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
