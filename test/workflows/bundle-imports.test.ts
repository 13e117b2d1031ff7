import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import ts from 'typescript';

// The SDK evaluates every module a workflow bundle imports again for each workflow it runs. zod and
// the payload schemas cost two thirds of the worker's CPU per job when workflows imported them
// (docs/performance.md), so workflow code must reach them, and fflate, only through the lazy
// requires in src/workflows/lazy-modules.ts.

const src = resolve(__dirname, '../../src');
const entries = [resolve(src, 'workflows/index.ts'), resolve(src, 'workflows/interceptors.ts')];

/** Module specifiers a file imports or re-exports at run time (type-only imports are erased). */
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
    }
  }
  return found;
}

/** Every module reachable from the entries by run-time imports: our files by path, packages by name. */
function reachable(): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const spec of runtimeImports(file)) {
      if (!spec.startsWith('.')) packages.add(spec);
      else queue.push(resolveLocal(resolve(dirname(file), spec)));
    }
  }
  return { files, packages };
}

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
    assert.deepEqual([...packages].filter((p) => /^(zod|fflate)(\/|$)/.test(p)), []);
  });

  it('workflow code imports no payload schema at module load', () => {
    const schemas = [...files].filter((f) => f.includes('/jobs/payloads/')).map((f) => f.slice(src.length + 1));
    assert.deepEqual(schemas, []);
  });

  it('the DLQ reaches them through the lazy requires', () => {
    const lazy = resolve(src, 'workflows/lazy-modules.ts');
    assert.ok(files.has(lazy));
    assert.match(readFileSync(lazy, 'utf8'), /require\('\.\.\/jobs\/payloads'\)/);
    assert.match(readFileSync(lazy, 'utf8'), /require\('fflate\/browser'\)/);
  });
});
