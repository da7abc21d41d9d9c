import type { DefinitionRow } from '../definitions/definitions.repository.js';

/**
 * Resolves definition references of a whole import or connector call against the issuer's
 * definitions, read once: only the key holder's definitions can ever match, so another issuer's id
 * or slug resolves exactly like one that does not exist.
 */
export function createDefinitionResolver(rows: DefinitionRow[]) {
  const byId = new Map<string, DefinitionRow>();
  const bySlug = new Map<string, DefinitionRow>();
  const byName = new Map<string, DefinitionRow>();
  // Rows arrive oldest first: when names repeat, the oldest definition wins (as definitions.findRowByRef).
  for (const row of rows) {
    byId.set(row.id, row);
    bySlug.set(row.slug, row);
    const name = row.name.trim().toLowerCase();
    if (!byName.has(name)) byName.set(name, row);
  }
  return {
    byId: (id: string) => byId.get(id.trim()),
    /** A credential type by slug, else by case-insensitive name. */
    byRef: (ref: string) => bySlug.get(ref.trim()) ?? byName.get(ref.trim().toLowerCase()),
    /** A definitionMap value: an id or a slug. */
    byIdOrSlug: (value: string) => byId.get(value.trim()) ?? bySlug.get(value.trim()),
    /** A provider course code used as a slug; slugs are lower case, codes often are not. */
    byCode: (code: string) => bySlug.get(code.trim()) ?? bySlug.get(code.trim().toLowerCase()),
  };
}

export type DefinitionResolver = ReturnType<typeof createDefinitionResolver>;
