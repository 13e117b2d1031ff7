import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { repoRoot } from '../helpers/env';
import { prometheusTool, testScrapeConfig } from '../helpers/prometheus';
import { runCommand } from '../helpers/processes';

const shippedFile = path.join(repoRoot, 'deploy/prometheus/prometheus.yml');

// Prometheus's own checker on the scrape config docker-compose.yml mounts, and on the config that
// tests running a real Prometheus derive from it (test/helpers/prometheus.ts).
describe('deploy/prometheus/prometheus.yml', () => {
  it('passes promtool check config', async () => {
    const checked = await runCommand(prometheusTool('promtool'), ['check', 'config', shippedFile]);
    assert.equal(checked.code, 0, `promtool check config ${shippedFile}:\n${checked.stdout}${checked.stderr}`);
    assert.match(checked.stdout, /SUCCESS/);
  });

  it('derives the test config: one static target instead of the DNS discovery, a 1s scrape interval, the rest as shipped; promtool passes it too', async () => {
    const shipped = await readFile(shippedFile, 'utf8');
    const derived = testScrapeConfig(shipped, '127.0.0.1:19464', '1s');
    const [before, after] = [parse(shipped), parse(derived)] as { global: Record<string, unknown>; scrape_configs: Record<string, unknown>[] }[];
    assert.deepEqual(after!.global, { ...before!.global, scrape_interval: '1s' });
    assert.deepEqual(
      after!.scrape_configs,
      before!.scrape_configs.map(({ dns_sd_configs: _dns, ...job }) => ({ ...job, static_configs: [{ targets: ['127.0.0.1:19464'] }] })),
    );
    const dir = await mkdtemp(path.join(os.tmpdir(), 'durable-jobs-promtool-'));
    try {
      await writeFile(path.join(dir, 'prometheus.yml'), derived);
      const checked = await runCommand(prometheusTool('promtool'), ['check', 'config', path.join(dir, 'prometheus.yml')]);
      assert.equal(checked.code, 0, `${checked.stdout}${checked.stderr}\n${derived}`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses to derive a test config from a discovery it does not know how to replace', () => {
    const fileSd = 'scrape_configs:\n  - job_name: w\n    file_sd_configs:\n      - files: [targets.json]\n';
    assert.throws(() => testScrapeConfig(fileSd, '127.0.0.1:1', '1s'), /scrape job w: finds its targets with file_sd_configs; testScrapeConfig knows how to replace dns_sd_configs only/);
  });
});
