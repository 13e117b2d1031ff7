// How jobctl finds the project's catalog: `--catalog <module>`, else DURABLE_JOBS_CATALOG, else
// package.json's `"durable-jobs": { "catalog": … }` (src/shared/project-modules.ts). Only commands
// that validate a payload need it; the rest read Temporal alone and never load it.
import { isCatalog, type Catalog } from '../catalog/catalog';
import { NoCatalogError } from '../catalog/catalog-error';
import { findProjectModule, loadProjectModule } from '../shared/project-modules';

/**
 * Whether a command needs the catalog (`required`), uses it when there is one (`optional`), uses
 * it when there is one but loads it only if it reads it (`lazy`: `status` of a job that reports
 * its own attempts limit never does), or never loads it (`none`).
 */
export type CatalogNeed = 'required' | 'optional' | 'lazy' | 'none';

let flag: string | undefined;
let cached: Catalog | undefined;

/** Records jobctl's global `--catalog` flag, before a command runs. */
export function setCatalogFlag(value: string | undefined): void {
  flag = value;
  cached = undefined;
}

/**
 * The project's catalog as the command needs it. `required`: throws {@link NoCatalogError} when
 * none is named, naming the operation; a catalog that is named but fails to load is an error in
 * both `required` and `optional`, which name the flag, variable or package.json it came from.
 */
export function projectCatalog(need: CatalogNeed, operation: string): Catalog | undefined {
  if (need === 'none') return undefined;
  if (cached) return cached;
  if (need === 'lazy') return findProjectModule('catalog', flag) ? lazyCatalog(operation) : undefined;
  const ref = findProjectModule('catalog', flag);
  if (!ref) {
    if (need === 'required') throw new NoCatalogError(operation);
    return undefined;
  }
  cached = loadProjectModule(ref, 'catalog', isCatalog, 'defineCatalog({ jobs, payloads })');
  return cached;
}

/** The project's catalog, loaded when first read: loading a catalog loads its zod schemas. */
function lazyCatalog(operation: string): Catalog {
  const load = () => projectCatalog('optional', operation)!;
  return new Proxy({} as Catalog, {
    get: (_, key) => {
      const catalog = load();
      const value: unknown = Reflect.get(catalog, key, catalog);
      return typeof value === 'function' ? value.bind(catalog) : value;
    },
    has: (_, key) => Reflect.has(load(), key),
  });
}
