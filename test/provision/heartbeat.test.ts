import assert from 'node:assert/strict';
import { buildWithHeartbeat } from '../../src/provision/heartbeat';

describe('provisioning progress while a binary builds', () => {
  it('names the binary, beats while the build runs, and says how long it took', async () => {
    const lines: string[] = [];
    const value = await buildWithHeartbeat('temporal-server', 'go install go.temporal.io/server/cmd/server@v1.32.2', (line) => lines.push(line), () => new Promise((r) => setTimeout(() => r(42), 130)), 40);
    assert.equal(value, 42);
    assert.equal(lines[0], 'building temporal-server: go install go.temporal.io/server/cmd/server@v1.32.2');
    const beats = lines.filter((l) => /^still building temporal-server \(\d+s\)$/.test(l));
    assert.ok(beats.length >= 2, `a beat every 40 ms over 130 ms: ${lines.join(' | ')}`);
    assert.match(lines.at(-1)!, /^built temporal-server in \d+s$/);
  });

  it('stops beating when the build fails, and passes its error on', async () => {
    const lines: string[] = [];
    await assert.rejects(buildWithHeartbeat('ui-server', 'go install …', (line) => lines.push(line), () => Promise.reject(new Error('go: module not found')), 20), /module not found/);
    const after = lines.length;
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(lines.length, after, 'no beat after the failure');
    assert.ok(!lines.some((l) => l.startsWith('built ')));
  });
});
