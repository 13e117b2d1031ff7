import type { NamespacedErrorType } from '../workflow-kit';

/** The library's own namespace, where the built-in job types kept their errors until 0.3. */
const libraryNamespace = 'jobs:';

/**
 * `types` and, for each in a built-in job type's own namespace (`send-email:smtp-rejected`), the
 * name it had until 0.3 in the library's (`jobs:smtp-rejected`). Histories, dead letters and
 * dashboards from before hold the former names, and a worker of the former release throws them
 * during a rolling deploy, so the presets match both until 1.0 (CHANGELOG.md).
 */
export function withFormerNames(types: readonly NamespacedErrorType[]): NamespacedErrorType[] {
  const former = types.filter((type) => !type.startsWith(libraryNamespace)).map((type): NamespacedErrorType => `${libraryNamespace}${type.slice(type.indexOf(':') + 1)}`);
  return [...types, ...former];
}
