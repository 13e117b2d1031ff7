import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../helpers/env';

const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  main: string;
  types?: string;
  private?: boolean;
  exports: Record<string, string | { types: string; default: string }>;
  files?: string[];
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
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

  it('takes @temporalio/testing as an optional peer (the test kit, a team\'s dev dependency), pinned like the other @temporalio packages, and loads it only from the test kit and provisioning', () => {
    assert.equal(pkg.dependencies['@temporalio/testing'], undefined);
    assert.equal(pkg.peerDependenciesMeta['@temporalio/testing']?.optional, true);
    assert.equal(pkg.peerDependencies['@temporalio/testing'], pkg.peerDependencies['@temporalio/worker']);
    assert.equal(pkg.devDependencies['@temporalio/testing'], pkg.peerDependencies['@temporalio/testing'], 'the repository tests with the version it asks for');
    assert.match(pkg.peerDependencies['@temporalio/testing']!, /^\d+\.\d+\.\d+$/, 'an exact version');
    const runtimeImports = sourceFiles(path.join(repoRoot, 'src')).filter((f) => /^import (?!type )[^;]*from '@temporalio\/testing'|import\('@temporalio\/testing'\)/m.test(readFileSync(f, 'utf8')));
    assert.deepEqual(runtimeImports.map((f) => path.relative(repoRoot, f)).sort(), ['src/provision/temporal-cli.ts', 'src/provision/test-server.ts', 'src/testing/environment.ts', 'src/testing/run-step.ts']);
  });

  it('maps every entry point to built JavaScript and its declarations, and keeps the client the main one', () => {
    const entries = Object.entries(pkg.exports).filter(([name]) => name !== './package.json');
    assert.deepEqual(entries.map(([name]) => name), ['.', './client', './catalog', './job', './worker', './console', './workflow', './activity', './testing', './eslint']);
    for (const [name, target] of entries) {
      assert.ok(typeof target === 'object', `${name} has conditions`);
      assert.deepEqual(Object.keys(target), ['types', 'default'], `${name}: types first, as TypeScript requires`);
      assert.equal(target.types, target.default.replace(/\.js$/, '.d.ts'));
      for (const file of [target.types, target.default]) assert.ok(existsSync(path.join(repoRoot, file)), `${name}: ${file} is built`);
    }
    assert.equal(`./${pkg.main}`, (pkg.exports['.'] as { default: string }).default);
    assert.equal(pkg.private, undefined, 'publishable');
    // The lint rules for a team's workflow code (0.2's path, deprecated): the module durable-jobs/workflow exports them from.
    assert.equal((pkg.exports['./eslint'] as { default: string }).default, './dist/workflow-kit/lint-rules.js');
  });

  it('imports SDK internals (@temporalio/*/lib/…) only through src/shared/sdk-internals.ts and, for the client\'s and the worker\'s (which workflow code must not load), src/client/sdk-client-internals.ts and src/worker/sdk-worker-internals.ts', () => {
    const internals = [path.join('shared', 'sdk-internals.ts'), path.join('client', 'sdk-client-internals.ts'), path.join('worker', 'sdk-worker-internals.ts')];
    const offenders = [...sourceFiles(path.join(repoRoot, 'src')), ...sourceFiles(path.join(repoRoot, 'test'))]
      .filter((f) => !internals.some((own) => f.endsWith(own)))
      .filter((f) => /from '@temporalio\/[a-z-]+\/lib\//.test(readFileSync(f, 'utf8')));
    assert.deepEqual(offenders.map((f) => path.relative(repoRoot, f)), []);
  });
});
