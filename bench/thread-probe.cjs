// Preloaded into a bench worker (`node --require`), and so into each of its JavaScript threads:
// a worker thread (the SDK's workflow thread, tsx's loader) notes its kernel thread ID, so the bench
// can tell its CPU from the main thread's and the native threads' (the SDK's Rust core, V8's
// helpers, libuv) in /proc. Node 20 names none of its threads.
'use strict';
const { isMainThread } = require('node:worker_threads');
const { appendFileSync, readlinkSync } = require('node:fs');

const file = process.env.BENCH_THREADS_FILE;
if (file && !isMainThread) {
  try {
    // "<pid>/task/<tid>"
    appendFileSync(file, `${readlinkSync('/proc/thread-self').split('/').pop()}\n`);
  } catch {
    // Not Linux: the bench reports no split by thread.
  }
}
