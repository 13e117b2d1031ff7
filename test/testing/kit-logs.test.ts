import assert from 'node:assert/strict';
import path from 'node:path';
import { repoRoot } from '../helpers/env';
import { freePort, runCommand } from '../helpers/processes';

const script = path.join(repoRoot, 'test/fixtures/kit-logs/run.ts');
const run = (env: NodeJS.ProcessEnv) => runCommand(process.execPath, ['--require', 'tsx/cjs', script], { ...process.env, LOG_LEVEL: undefined, ...env });
/** SDK console lines of a level (the DefaultLogger prints `<time> [LEVEL] message`). */
const linesOf = (text: string, level: string) => text.split('\n').filter((line) => line.includes(`[${level}]`)).length;

// The kit in a process of its own, as a team's test runs it: one noop job, then close.
describe('the test kit\'s logs and server', function () {
  this.timeout(180_000);

  it('are warnings and errors only by default: no INFO line for a job', async () => {
    const ran = await run({});
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stdout, /job completed/);
    assert.equal(linesOf(ran.stdout + ran.stderr, 'INFO'), 0, ran.stdout + ran.stderr);
  });

  it('honour LOG_LEVEL=info, and name a LOG_LEVEL the SDK lacks', async () => {
    const ran = await run({ LOG_LEVEL: 'info' });
    assert.equal(ran.code, 0, ran.stderr);
    assert.ok(linesOf(ran.stdout + ran.stderr, 'INFO') > 5, ran.stdout + ran.stderr);
    const bad = await run({ LOG_LEVEL: 'loud' });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /LOG_LEVEL: must be one of trace, debug, info, warn, error, got "loud"/);
  });

  it('listen on the port given', async () => {
    const port = await freePort();
    const ran = await run({ KIT_PORT: String(port) });
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stdout, new RegExp(`server [\\w.:\\[\\]]+:${port}\\b`));
  });

  it('go to the logger given, and not to the console', async () => {
    const ran = await run({ KIT_COLLECT: '1' });
    assert.equal(ran.code, 0, ran.stderr);
    const collected = JSON.parse(/collected (.*)/.exec(ran.stdout)![1]!) as Record<string, number>;
    assert.ok((collected.INFO ?? 0) > 5, JSON.stringify(collected));
    assert.equal(linesOf(ran.stdout + ran.stderr, 'INFO'), 0);
  });
});
