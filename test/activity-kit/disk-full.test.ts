// The outbox and the reports directory on a file system that fills up: a 1 MiB tmpfs the test
// mounts (as root; CI runs as root too), a real worker, the dev server.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { JobClient } from '../../src/client/job-client';
import { catalog } from '../../src/jobs/catalog';
import { ErrorType } from '../../src/shared/errors';
import { sqliteTestDb, type TestDb } from '../helpers/db';
import { waitFor } from '../helpers/dlq';
import { bundleWorkflows, createTestWorker, startDevServerEnv, uniqueId } from '../helpers/env';
import { createActivities, testActivityDeps } from '../helpers/worker';

/** Mounts a tmpfs of `size` on `dir`, or fails with the reason: this test is never skipped. */
function mountTmpfs(dir: string, size: string): void {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`the full-disk test needs a small file system of its own and could not mount a tmpfs on ${dir} (run as root, or with CAP_SYS_ADMIN): ${stderr || String(err)}`);
  }
}

/** Writes to `file` until the file system is full (ENOSPC). */
async function fill(file: string): Promise<void> {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  for (;;) {
    try {
      await appendFile(file, chunk);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
      throw err;
    }
  }
  // The last page or two: smaller writes until nothing fits.
  for (const size of [4096, 512, 1]) {
    while (await appendFile(file, Buffer.alloc(size, 0x61)).then(() => true, () => false));
  }
}

describe('a full disk under the outbox and the reports directory (dev server, 1 MiB tmpfs)', function () {
  this.timeout(180_000);
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;
  let testDb: TestDb;
  let mountPoint: string;

  before(async () => {
    mountPoint = await mkdtemp(path.join(os.tmpdir(), 'full-disk-'));
    mountTmpfs(mountPoint, '1m');
    [env, bundle, testDb] = await Promise.all([startDevServerEnv(), bundleWorkflows(), sqliteTestDb()]);
  });
  after(async () => {
    await testDb?.close();
    await env?.teardown();
    if (mountPoint) execFileSync('umount', ['-l', mountPoint]);
  });

  it('retries emails and a report with jobs:disk-full, never leaves a truncated file under a final name, and completes them once space is freed', async () => {
    const outboxDir = path.join(mountPoint, 'outbox');
    const reportsDir = path.join(mountPoint, 'reports');
    await Promise.all([mkdir(outboxDir), mkdir(reportsDir)]);
    const filler = path.join(mountPoint, 'filler');
    await fill(filler);

    const taskQueue = uniqueId('tq');
    const activities = createActivities(testActivityDeps(testDb.db, { reportsDir, email: { outboxDir, from: 'jobs@test' } }));
    const worker = await createTestWorker(env, bundle, { taskQueue, activities });
    const jobs = new JobClient(env.client, { catalog, taskQueue });
    const body = `${'A full disk must not cut this message short. '.repeat(400)}THE END`;
    const reportName = uniqueId('full-disk-report');

    const finalNames = async () => [
      ...(await readdir(outboxDir)).filter((n) => n.endsWith('.eml')),
      ...(await readdir(reportsDir)).filter((n) => n === `${reportName}.csv`),
    ];
    const temporaries = async () => [...(await readdir(outboxDir)), ...(await readdir(reportsDir))].filter((n) => n.endsWith('.tmp'));

    const seen = await worker.runUntil(async () => {
      const handles: WorkflowHandle[] = [];
      for (let i = 0; i < 3; i++) {
        handles.push((await jobs.enqueue('send-email', { to: `user${i}@example.com`, subject: `full disk ${i}`, body, userId: `u${i}` }, { id: uniqueId('mail') })).handle);
      }
      handles.push((await jobs.enqueue('generate-report', { from: '2026-01-01', to: '2027-01-01', format: 'csv', name: reportName }, { id: uniqueId('report') })).handle);

      // Each job has failed two attempts with jobs:disk-full and waits for its next.
      const failing = async () =>
        Promise.all(
          handles.map(async (h) => {
            const pending = (await h.describe()).raw.pendingActivities?.[0];
            return { attempt: pending?.attempt ?? 0, type: pending?.lastFailure?.applicationFailureInfo?.type, message: pending?.lastFailure?.message ?? '' };
          }),
        );
      const before = await waitFor(failing, (all) => all.every((p) => p.attempt >= 3 && p.type === ErrorType.DiskFull), 60_000);
      for (const p of before) assert.ok(p.attempt >= 3 && p.type === ErrorType.DiskFull, JSON.stringify(before));
      assert.deepEqual(await finalNames(), [], 'nothing under a final name while the disk is full');
      assert.deepEqual(await temporaries(), [], 'no temporary file left holding the space');

      await rm(filler);
      const results = await Promise.all(handles.map((h) => h.result() as Promise<{ path: string }>));
      return { before, results, after: await Promise.all(handles.map((h) => h.describe())) };
    });

    for (const p of seen.before.slice(0, 3)) assert.match(p.message, /OUTBOX_DIR/);
    assert.match(seen.before[3]!.message, /REPORTS_DIR/);
    for (const [i, result] of seen.results.slice(0, 3).entries()) {
      const eml = await readFile(result.path, 'utf8');
      assert.match(eml, new RegExp(`Subject: full disk ${i}`));
      // The body travels quoted-printable: joined at its soft line breaks, it is all there, to the end.
      assert.ok(eml.replace(/=\r?\n/g, '').trimEnd().endsWith(body), `${result.path} is whole`);
    }
    const report = await readFile(seen.results[3]!.path, 'utf8');
    assert.equal(report, 'account_id,currency,debits,credits,net,entries\n');
    assert.equal((await finalNames()).length, 4);
    assert.deepEqual(await temporaries(), []);
    console.log(`      attempts while full, per job: ${seen.before.map((p) => p.attempt - 1).join(', ')} failed with jobs:disk-full before space was freed`);
  });
});
