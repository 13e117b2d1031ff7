import assert from 'node:assert/strict';
import { buildWithHeartbeat } from '../../src/provision/heartbeat';

describe('provisioning progress while a binary builds', () => {
  it('names the binary, beats while the build runs, and says how long it took', async () => {
    const lines: string[] = [];
    const isBeat = (l: string) => /^still building temporal-server \(\d+s\)$/.test(l);
    // The build ends once it has seen two beats, not after a fixed time a slow machine might not beat in; 5 s bounds it.
    const build = () =>
      new Promise((r) => {
        const end = Date.now() + 5000;
        const check = setInterval(() => {
          if (lines.filter(isBeat).length < 2 && Date.now() < end) return;
          clearInterval(check);
          r(42);
        }, 10);
      });
    const value = await buildWithHeartbeat('temporal-server', 'go install go.temporal.io/server/cmd/server@v1.32.2', (line) => lines.push(line), build, 40);
    assert.equal(value, 42);
    assert.equal(lines[0], 'building temporal-server: go install go.temporal.io/server/cmd/server@v1.32.2');
    const beats = lines.filter(isBeat);
    assert.ok(beats.length >= 2, `a beat every 40 ms while the build runs: ${lines.join(' | ')}`);
    assert.match(lines.at(-1)!, /^built temporal-server in \d+s$/);
  });

  it('stops beating when the build fails, and passes its error on', async () => {
    const lines: string[] = [];
    await assert.rejects(buildWithHeartbeat('ui-server', 'go install …', (line) => lines.push(line), () => Promise.reject(new Error('go: module not found')), 20), /module not found/);
    const after = lines.length;
    // Three beat intervals of nothing is the check.
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(lines.length, after, 'no beat after the failure');
    assert.ok(!lines.some((l) => l.startsWith('built ')));
  });
});
