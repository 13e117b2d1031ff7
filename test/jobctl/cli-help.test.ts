import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { programWithEveryCommand } from '../../src/jobctl/cli';
import { commandSummaries } from '../../src/jobctl/cli-command-summaries';
import { repoRoot } from '../helpers/env';

// `jobctl --help` lists the commands from their summaries, loading none of their modules; each
// command's own help still comes from its module.
describe('jobctl --help', function () {
  this.timeout(60_000);
  const jobctl = path.join(repoRoot, 'bin/jobctl.js');
  before(() => assert.ok(existsSync(path.join(repoRoot, 'dist/jobctl/cli.js')), 'npm run build first (npm test does)'));

  it('has a summary for every command, with the usage term and description its module gives', () => {
    const program = programWithEveryCommand();
    const help = program.createHelp();
    const actual = Object.fromEntries(program.commands.map((cmd) => [cmd.name(), { term: help.subcommandTerm(cmd), description: cmd.description() }]));
    // On a failure, the message holds the entries to put in src/jobctl/cli-command-summaries.ts.
    assert.deepEqual(commandSummaries, actual, `commandSummaries should be:\n${JSON.stringify(actual, null, 2)}`);
    assert.deepEqual(Object.keys(commandSummaries), Object.keys(actual), 'in the order help lists them');
  });

  it('lists every command as before, loading none of their modules, the client or zod', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'jobctl-help-'));
    try {
      const probe = path.join(dir, 'probe.cjs');
      await writeFile(probe, "process.on('exit', () => require('node:fs').writeFileSync(process.env.PROBE_OUT, JSON.stringify(Object.keys(require.cache))));\n");
      const out = path.join(dir, 'loaded.json');
      const stdout = execFileSync(process.execPath, ['--require', probe, jobctl, '--help'], { env: { ...process.env, PROBE_OUT: out, COLUMNS: '200' }, encoding: 'utf8' });
      for (const { term } of Object.values(commandSummaries)) assert.match(stdout, new RegExp(`^  ${term.replace(/[[\]]/g, '\\$&')}\\s`, 'm'), `lists ${term}`);
      assert.match(stdout, /^ {2}help \[command\]\s/m);
      const loaded = JSON.parse(await readFile(out, 'utf8')) as string[];
      const heavy = loaded.filter((file) => /[\\/](cli-(?!command-summaries|catalog|errors)[a-z-]+|job-client)\.js$|node_modules[\\/](@temporalio[\\/]client|zod|@grpc)[\\/]/.test(file));
      assert.deepEqual(heavy, [], 'no command module, client or zod loaded');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('shows a command\'s own help from its module: jobctl help enqueue, jobctl dlq --help', () => {
    const enqueue = execFileSync(process.execPath, [jobctl, 'help', 'enqueue'], { encoding: 'utf8' });
    assert.match(enqueue, /^Usage: jobctl enqueue \[options\] <type> \[payload-json\]/);
    assert.match(enqueue, /--file <path>/);
    const dlq = execFileSync(process.execPath, [jobctl, 'dlq', '--help'], { encoding: 'utf8' });
    assert.match(dlq, /^ {2}redrive/m);
  });

  it('names an unknown command and suggests the near ones, exit 2', () => {
    const result = spawnSync(process.execPath, [jobctl, 'statsu'], { encoding: 'utf8' });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /unknown command 'statsu'/);
    assert.match(result.stderr, /Did you mean one of stats, status\?/);
  });
});
