import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { repoRoot } from '../helpers/env';

/** The entry points, one per audience (issue 37 §2), and the source each is built from. */
const entryPoints: Record<string, string> = {
  '.': 'src/client/index.ts',
  './catalog': 'src/catalog/index.ts',
  './workflow': 'src/workflow-kit/index.ts',
  './activity': 'src/activity-kit/index.ts',
  './worker': 'src/worker/index.ts',
  './testing': 'src/testing/index.ts',
};
/** The 0.2 entry points kept as deprecated aliases for one minor version. */
const deprecatedEntryPoints: Record<string, { source?: string; use: string }> = {
  './client': { source: 'src/deprecated/client.ts', use: 'durable-jobs' },
  './job': { source: 'src/deprecated/job.ts', use: 'durable-jobs/workflow' },
  './console': { source: 'src/deprecated/console.ts', use: 'durable-jobs/worker' },
  // The lint rules' module, now exported by durable-jobs/workflow too: only its path is deprecated.
  './eslint': { use: 'durable-jobs/workflow' },
};
/** Globals a test runner or the platform defines, which an import must not shadow. */
const commonGlobals = ['describe', 'it', 'test', 'expect', 'before', 'after', 'fetch', 'URL', 'Buffer', 'console', 'process', 'setTimeout', 'Event', 'Response', 'Request'];

interface Exported {
  name: string;
  deprecated: boolean;
}

/** The names a TypeScript entry module exports, read from its syntax; `export *` is refused (names must be listed). */
function exportedNames(file: string, { allowStar = false } = {}): Exported[] {
  const source = ts.createSourceFile(file, readFileSync(path.join(repoRoot, file), 'utf8'), ts.ScriptTarget.ES2022, true);
  const names: Exported[] = [];
  for (const statement of source.statements) {
    const deprecated = ts.getJSDocTags(statement).some((tag) => tag.tagName.text === 'deprecated') || /@deprecated/.test(statement.getFullText().slice(0, statement.getStart() - statement.getFullStart()));
    if (ts.isExportDeclaration(statement)) {
      if (!statement.exportClause && allowStar) continue;
      assert.ok(statement.exportClause && ts.isNamedExports(statement.exportClause), `${file}: \`export *\` hides what the entry point exports; list the names`);
      for (const element of statement.exportClause.elements) names.push({ name: element.name.text, deprecated });
    } else if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name && isExported(statement)) {
      names.push({ name: statement.name.text, deprecated });
    } else if (ts.isVariableStatement(statement) && isExported(statement)) {
      for (const declaration of statement.declarationList.declarations) names.push({ name: declaration.name.getText(source), deprecated });
    }
  }
  return names;
}

const isExported = (node: ts.Node) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

describe('the package’s entry points (issue 37 §2)', () => {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { exports: Record<string, unknown>; typesVersions: Record<string, Record<string, string[]>> };

  it('are at most six, one per audience, beside the 0.2 ones kept as deprecated aliases', () => {
    const declared = Object.keys(pkg.exports).filter((key) => key !== './package.json');
    assert.ok(Object.keys(entryPoints).length <= 6);
    assert.deepEqual(declared.filter((key) => !(key in deprecatedEntryPoints)).sort(), Object.keys(entryPoints).sort());
    assert.deepEqual(declared.filter((key) => key in deprecatedEntryPoints).sort(), Object.keys(deprecatedEntryPoints).sort());
    const changelog = readFileSync(path.join(repoRoot, 'CHANGELOG.md'), 'utf8');
    for (const [key, { use }] of Object.entries(deprecatedEntryPoints)) {
      const name = `durable-jobs/${key.slice(2)}`;
      assert.ok(changelog.includes(`\`${name}\``) && changelog.includes(use), `CHANGELOG.md says ${name} is deprecated and what to use instead (${use})`);
    }
    for (const key of [...Object.keys(entryPoints), ...Object.keys(deprecatedEntryPoints)].filter((k) => k !== '.')) {
      assert.ok(pkg.typesVersions['*']?.[key.slice(2)], `typesVersions covers ${key} for node10 resolution`);
    }
  });

  const current = Object.entries(entryPoints).map(([key, file]) => ({ key, names: exportedNames(file) }));

  it('export each name from one entry point (deprecated aliases aside)', () => {
    const owners = new Map<string, string[]>();
    for (const { key, names } of current) {
      for (const { name, deprecated } of names) if (!deprecated) owners.set(name, [...(owners.get(name) ?? []), key]);
    }
    const twice = [...owners].filter(([, keys]) => keys.length > 1).map(([name, keys]) => `${name} (${keys.join(', ')})`);
    assert.deepEqual(twice, []);
    assert.ok(owners.size > 100, `${owners.size} names read: the parse found the entry points' exports`);
  });

  it('shadow no common global, and name retry shapes apart from cron schedules', () => {
    for (const { key, names } of current) {
      const live = names.filter((n) => !n.deprecated).map((n) => n.name);
      assert.deepEqual(live.filter((name) => commonGlobals.includes(name)), [], `${key} shadows a global`);
      assert.deepEqual(live.filter((name) => name === 'schedule' || name === 'exponential'), [], `${key}: a retry shape is retrySchedule / exponentialRetry`);
    }
    const workflow = current.find((c) => c.key === './workflow')!.names.map((n) => n.name);
    assert.ok(workflow.includes('retrySchedule') && workflow.includes('exponentialRetry'));
  });

  it('keep every name a 0.2 entry point exported, under the deprecated alias', () => {
    for (const [key, { source }] of Object.entries(deprecatedEntryPoints)) {
      if (source === undefined) continue;
      const text = readFileSync(path.join(repoRoot, source), 'utf8');
      assert.match(text.split('\n')[0]!, /deprecated since 0\.3 \(removed in 0\.4\)/, `${source} says it is deprecated and until when`);
      assert.ok(key in pkg.exports);
    }
    const client = exportedNames('src/deprecated/client.ts', { allowStar: true }).map((n) => n.name);
    for (const name of ['ErrorType', 'describe', 'formatIssues']) assert.ok(client.includes(name), `durable-jobs/client still exports ${name}`);
    const text = readFileSync(path.join(repoRoot, 'src/deprecated/client.ts'), 'utf8');
    assert.match(text, /export \* from '\.\.\/client\/index';/);
    assert.match(text, /export \* from '\.\.\/catalog\/index';/, 'with the catalog\'s names and its deprecated definitions and retry shapes');
    const catalog = exportedNames('src/catalog/index.ts');
    for (const name of ['defineJob', 'schedule', 'exponential']) assert.ok(catalog.some((n) => n.name === name && n.deprecated), `durable-jobs/catalog still exports ${name}, deprecated`);
  });
});
