import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import ts from 'typescript';
import { sharedWorkflowModules } from '../../src/worker/library-parts';

// The SDK evaluates every module a workflow bundle imports again for each workflow it runs. zod and
// the payload schemas cost two thirds of the worker's CPU per job when workflows imported them
// (docs/performance.md), so workflow code must reach them, and fflate, only through the lazy
// requires in src/workflow-kit/lazy-modules.ts; the payload schemas, not at all (the DLQ's redrive
// check runs in the worker's restart activity, which has the catalog).

const src = resolve(__dirname, '../../src');
const entries = [resolve(src, 'workflows/index.ts'), resolve(src, 'workflow-kit/interceptors.ts'), resolve(src, 'workflow-kit/index.ts'), resolve(src, 'workflow-kit/library-workflows.ts')];

/**
 * Module specifiers a file imports, re-exports or requires at its top level, at run time (type-only
 * imports are erased; a require inside a function runs only when called, which is the point).
 */
function runtimeImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022);
  const found: string[] = [];
  for (const node of source.statements) {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      if (clause?.isTypeOnly) continue;
      const named = clause?.namedBindings;
      const allTypes = clause && !clause.name && named && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
      if (!allTypes) found.push((node.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && !node.isTypeOnly) {
      const named = node.exportClause;
      if (named && ts.isNamedExports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly)) continue;
      found.push((node.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isImportEqualsDeclaration(node) && !node.isTypeOnly && ts.isExternalModuleReference(node.moduleReference)) {
      found.push((node.moduleReference.expression as ts.StringLiteral).text);
    } else if (!ts.isFunctionDeclaration(node) && !ts.isClassDeclaration(node)) {
      found.push(...topLevelRequires(node));
    }
  }
  return found;
}

/** `require('x')` calls in a top-level statement, outside any function body. */
function topLevelRequires(node: ts.Node): string[] {
  if (ts.isFunctionLike(node)) return [];
  if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'require' && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
    return [node.arguments[0].text];
  }
  const found: string[] = [];
  node.forEachChild((child) => void found.push(...topLevelRequires(child)));
  return found;
}

/**
 * Every module reachable from the entries by run-time imports (our files by path, packages by
 * name), each with the file that first imports it, so that a failure names the culprit.
 */
function reachable(from: string[] = entries): { files: Map<string, string>; packages: Map<string, string> } {
  const files = new Map<string, string>();
  const packages = new Map<string, string>();
  const queue: Array<[string, string]> = from.map((e) => [e, 'entry']);
  while (queue.length > 0) {
    const [file, by] = queue.pop()!;
    if (files.has(file)) continue;
    files.set(file, by);
    for (const spec of runtimeImports(file)) {
      if (!spec.startsWith('.')) {
        if (!packages.has(spec)) packages.set(spec, file);
      } else queue.push([resolveLocal(resolve(dirname(file), spec)), file]);
    }
  }
  return { files, packages };
}

/**
 * What a module keeps at module scope that the SDK's deep freeze of shared modules does not guard:
 * a `let` or `var` binding, or a Map or Set (their entries stay writable in a frozen object).
 */
function moduleScopeState(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  for (const node of source.statements) {
    if (!ts.isVariableStatement(node)) continue;
    const list = node.declarationList;
    const binding = list.flags & ts.NodeFlags.Let ? 'let' : list.flags & ts.NodeFlags.Const ? undefined : 'var';
    for (const d of list.declarations) {
      const line = source.getLineAndCharacterOfPosition(d.getStart()).line + 1;
      if (binding) found.push(`${binding} ${d.name.getText()} (line ${line})`);
      else if (d.initializer && ts.isNewExpression(d.initializer) && /^(Weak)?(Map|Set)$/.test(d.initializer.expression.getText())) found.push(`${d.initializer.expression.getText()} ${d.name.getText()} (line ${line})`);
    }
  }
  return found;
}

const rel = (file: string) => file.slice(src.length + 1);

function resolveLocal(base: string): string {
  for (const candidate of [`${base}.ts`, resolve(base, 'index.ts')]) {
    try {
      readFileSync(candidate);
      return candidate;
    } catch {
      // try the next form
    }
  }
  throw new Error(`cannot resolve ${base}`);
}

describe('workflow bundle imports', () => {
  const { files, packages } = reachable();

  it('workflow code imports neither zod nor fflate at module load', () => {
    assert.ok(files.size > 10, `walked only ${files.size} files`);
    const banned = [...packages].filter(([p]) => /^(zod|fflate)(\/|$)/.test(p)).map(([p, by]) => `${p} (imported by src/${rel(by)})`);
    assert.deepEqual(banned, []);
  });

  it('workflow code imports no payload schema, catalog or worker module at module load', () => {
    const schemas = [...files]
      .filter(([f]) => f.includes('/jobs/payloads/') || /\/jobs\/(catalog|worker)\.ts$/.test(f) || /\/catalog\/(catalog|validate|prepare-job)\.ts$/.test(f))
      .map(([f, by]) => `src/${rel(f)} (imported by src/${rel(by)})`);
    assert.deepEqual(schemas, []);
  });

  it('the modules shared by every workflow of a sandbox keep no value of a run at module scope (run-local.ts keeps them)', () => {
    const shared = sharedWorkflowModules.filter((m) => m.startsWith(src)).map((m) => resolveLocal(m.replace(/\.(ts|js)$/, '')));
    assert.equal(shared.length, 3, `the library's shared modules: ${sharedWorkflowModules.join(', ')}`);
    const { files: reached } = reachable(shared);
    assert.ok(reached.size > 20, `walked only ${reached.size} files`);
    const kept = [...reached.keys()].flatMap((f) => moduleScopeState(f).map((what) => `src/${rel(f)}: ${what}`));
    assert.deepEqual(kept, []);
  });

  it('the DLQ reaches fflate through the lazy require, and no schema even lazily', () => {
    const lazy = resolve(src, 'workflow-kit/lazy-modules.ts');
    assert.ok(files.has(lazy));
    assert.match(readFileSync(lazy, 'utf8'), /require\('fflate\/browser'\)/);
    assert.doesNotMatch(readFileSync(lazy, 'utf8'), /payloads|zod/);
  });
});
