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

  it('ships @temporalio/testing for the test kit alone: the client and worker never load it', () => {
    // The kit (durable-jobs/testing) needs it at run time, so it is a dependency; nothing else imports it.
    assert.ok(pkg.dependencies['@temporalio/testing']);
    assert.equal(pkg.devDependencies['@temporalio/testing'], undefined);
    const staticImports = sourceFiles(path.join(repoRoot, 'src')).filter((f) => /from '@temporalio\/testing'/.test(readFileSync(f, 'utf8')));
    const outside = staticImports.map((f) => path.relative(repoRoot, f)).filter((f) => !f.startsWith('src/testing/') && f !== 'src/provision/test-server.ts');
    assert.deepEqual(outside, [], 'only the test kit and the time-skipping server provisioning import it');
  });

  it('imports SDK internals (@temporalio/*/lib/…) only through src/shared/sdk-internals.ts', () => {
    const offenders = [...sourceFiles(path.join(repoRoot, 'src')), ...sourceFiles(path.join(repoRoot, 'test'))]
      .filter((f) => !f.endsWith(path.join('shared', 'sdk-internals.ts')))
      .filter((f) => /from '@temporalio\/[a-z-]+\/lib\//.test(readFileSync(f, 'utf8')));
    assert.deepEqual(offenders.map((f) => path.relative(repoRoot, f)), []);
  });
});
