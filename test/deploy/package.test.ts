import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../helpers/env';

const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  main: string;
  types?: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

describe('the package', () => {
  it('ships type declarations for its main entry point (npm test builds first)', () => {
    assert.ok(pkg.types, 'package.json names its types');
    assert.equal(pkg.types, pkg.main.replace(/\.js$/, '.d.ts'));
    assert.ok(existsSync(path.join(repoRoot, pkg.types)), `${pkg.types} is built`);
    assert.match(readFileSync(path.join(repoRoot, pkg.types), 'utf8'), /JobClient/);
  });

  it('keeps @temporalio/testing a development dependency, loaded lazily by the one runtime path that needs it', () => {
    assert.ok(pkg.devDependencies['@temporalio/testing']);
    assert.equal(pkg.dependencies['@temporalio/testing'], undefined);
    const staticImports = sourceFiles(path.join(repoRoot, 'src')).filter((f) => /from '@temporalio\/testing'/.test(readFileSync(f, 'utf8')));
    // Only the time-skipping test server provisioning (used by tests and `npm run provision`) imports it statically.
    assert.deepEqual(staticImports.map((f) => path.relative(repoRoot, f)), ['src/provision/test-server.ts']);
  });

  it('imports SDK internals (@temporalio/*/lib/…) only through src/shared/sdk-internals.ts', () => {
    const offenders = [...sourceFiles(path.join(repoRoot, 'src')), ...sourceFiles(path.join(repoRoot, 'test'))]
      .filter((f) => !f.endsWith(path.join('shared', 'sdk-internals.ts')))
      .filter((f) => /from '@temporalio\/[a-z-]+\/lib\//.test(readFileSync(f, 'utf8')));
    assert.deepEqual(offenders.map((f) => path.relative(repoRoot, f)), []);
  });
});
