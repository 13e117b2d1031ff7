import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { generateReference, referencePages, repoRoot } from './reference';

// The reference pages are generated from the code (test/docs/reference.ts): jobctl's own help and
// the settings' schemas. A change to either without `npm run docs:reference` fails here.
describe('the reference pages (docs/reference/)', function () {
  this.timeout(30_000);

  it('match what npm run docs:reference generates from the code', () => {
    for (const { file, text } of generateReference()) {
      const committed = readFileSync(path.join(repoRoot, file), 'utf8');
      assert.ok(committed === text, `${file} no longer matches the code: run \`npm run docs:reference\` and commit the result`);
    }
  });

  it('name every environment variable src/ reads', () => {
    const page = readFileSync(path.join(repoRoot, referencePages.configuration), 'utf8');
    const files = (readdirSync(path.join(repoRoot, 'src'), { recursive: true }) as string[]).filter((file) => file.endsWith('.ts'));
    const read = new Set<string>();
    for (const file of files) {
      const text = readFileSync(path.join(repoRoot, 'src', file), 'utf8');
      // process.env.X, env.X, env['X'], { env: 'X' } and the project modules' `'DURABLE_JOBS_…'`.
      for (const m of text.matchAll(/\benv(?:\.|\[')([A-Z][A-Z0-9_]+)|\benv: '([A-Z][A-Z0-9_]+)'|'(DURABLE_JOBS_[A-Z_]+|JOBCTL_[A-Z_]+)'/g)) read.add((m[1] ?? m[2] ?? m[3])!);
    }
    const notSettings = new Set(['PATH', 'HOME', 'XDG_CACHE_HOME']);
    const missing = [...read].filter((name) => !notSettings.has(name) && !page.includes(`\`${name}\``)).sort();
    assert.deepEqual(missing, [], `${referencePages.configuration} should name these variables (in test/docs/reference.ts), then run \`npm run docs:reference\``);
  });
});
