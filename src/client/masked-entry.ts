// A DLQ entry as it is shown: its sensitive fields masked in the payload and in its audit
// trail's patches. The entry names its fields (its hand-off recorded them); an entry from before
// that takes them from the catalog, when there is one.
import type { Catalog } from '../catalog/catalog';
import { maskSensitive } from '../catalog/sensitive';
import type { DeadLetterEntry } from '../workflow-kit/dead-letter-entries';

/** The sensitive paths of an entry: its own, else its type's in the catalog. */
export function entrySensitive(entry: Pick<DeadLetterEntry, 'sensitive' | 'type'>, catalog?: Pick<Catalog, 'definition'>): readonly string[] | undefined {
  return entry.sensitive ?? catalog?.definition(entry.type)?.sensitive;
}

/** The entry with its sensitive fields masked, for display; the entry itself is left as it was. */
export function maskEntry(entry: DeadLetterEntry, catalog?: Pick<Catalog, 'definition'>): DeadLetterEntry {
  const paths = entrySensitive(entry, catalog);
  if (!paths?.length) return entry;
  return {
    ...entry,
    payload: maskSensitive(entry.payload, paths),
    audit: entry.audit.map((r) => (r.patch === undefined ? r : { ...r, patch: maskSensitive(r.patch, paths) })),
  };
}
