import assert from 'node:assert/strict';
import path from 'node:path';
import { repoRoot } from '../helpers/env';
import { runCommand } from '../helpers/processes';

const script = path.join(repoRoot, 'test/fixtures/lifecycle-logs/run.ts');

interface Line {
  message: string;
  level: string;
}

// What a job logs by default is paid on every job (issue 33 §2): a healthy job's start and
// completion are at debug (the metrics count them); a failure and its hand-off to the DLQ are not.
// In a process of its own (test/fixtures/lifecycle-logs/run.ts), whose logger keeps every level.
describe('a job’s lifecycle log lines (time-skipping): quiet at info when it completes, loud when it fails', function () {
  this.timeout(180_000);
  let lines: { completed: Line[]; failed: Line[] };

  before(async () => {
    const ran = await runCommand(process.execPath, ['--require', 'tsx/cjs', script], { ...process.env, LOG_LEVEL: undefined });
    assert.equal(ran.code, 0, ran.stderr);
    lines = JSON.parse(/^lines (.*)$/m.exec(ran.stdout)![1]!) as typeof lines;
  });

  const atInfoOrAbove = (l: Line) => !['TRACE', 'DEBUG'].includes(l.level);

  it('a completed job logs job:start and job:completed at debug, and nothing of its own at info or above', () => {
    assert.deepEqual(lines.completed.filter((l) => ['job:start', 'job:completed'].includes(l.message)).map((l) => [l.message, l.level]), [['job:start', 'DEBUG'], ['job:completed', 'DEBUG']]);
    assert.deepEqual(lines.completed.filter(atInfoOrAbove).map((l) => l.message), [], 'no line of its own at info or above');
  });

  it('a failed job logs job:failed at error and job:dead-lettered at warn', () => {
    const levels = Object.fromEntries(lines.failed.filter(atInfoOrAbove).map((l) => [l.message, l.level]));
    assert.equal(levels['job:failed'], 'ERROR');
    assert.equal(levels['job:dead-lettered'], 'WARN');
    assert.equal(levels['job:attempt-failed'], 'WARN');
  });
});
