import type { DefinitionRow } from '../definitions/definitions.repository.js';

/** A reference resolved to a definition, or why it resolves to none. */
export type DefinitionLookup =
  | { definition: DefinitionRow }
  | {
      problem: string;
      /** Why, for a report's problems: the reference names several definitions, or matches none. */
      ambiguous?: boolean;
    };

/**
 * The definition a name means: the one definition of that name, else the one of them that is not
 * archived (an archived namesake is a definition replaced). Several candidates left: none is chosen.
 */
function byName(candidates: DefinitionRow[]): DefinitionRow | DefinitionRow[] | undefined {
  if (candidates.length <= 1) return candidates[0];
  const active = candidates.filter((row) => row.status !== 'archived');
  if (active.length === 1) return active[0];
  return active.length === 0 ? candidates : active;
}

/**
 * Resolves definition references of a whole import or connector call against the issuer's
 * definitions, read once: only the key holder's definitions can ever match, so another issuer's id
 * or slug resolves exactly like one that does not exist.
 */
export function createDefinitionResolver(rows: DefinitionRow[]) {
  const byId = new Map<string, DefinitionRow>();
  const bySlug = new Map<string, DefinitionRow>();
  const named = new Map<string, DefinitionRow[]>();
  const coded = new Map<string, DefinitionRow[]>();
  const add = (index: Map<string, DefinitionRow[]>, key: string, row: DefinitionRow) => {
    const same = index.get(key);
    if (same) same.push(row);
    else index.set(key, [row]);
  };
  for (const row of rows) {
    byId.set(row.id, row);
    bySlug.set(row.slug, row);
    add(named, row.name.trim().toLowerCase(), row);
    if (row.human_code) add(coded, row.human_code.trim().toLowerCase(), row);
  }
  /** The definitions a course code (the definition's own `humanCode`, issue 45 §3) names. */
  const byHumanCode = (ref: string) => byName(coded.get(ref.trim().toLowerCase()) ?? []);
  return {
    byId: (id: string) => byId.get(id.trim()),
    /**
     * A credential type by slug (an MIS course code "WELD1" is the slug weld1: slugs are lower
     * case), else by the definition's course code (`humanCode`, case-insensitive: the console's
     * "Course code" is what a roster's Course Code column holds), else by case-insensitive name.
     * A code or name several definitions share is a problem naming their slugs: choosing one
     * silently issued the wrong credential.
     */
    byRef(ref: string, label: string): DefinitionLookup {
      const slugged = bySlug.get(ref.trim()) ?? bySlug.get(ref.trim().toLowerCase());
      if (slugged) return { definition: slugged };
      const found = byHumanCode(ref) ?? byName(named.get(ref.trim().toLowerCase()) ?? []);
      if (found === undefined) return { problem: `${label} matches no definition slug, course code or name` };
      if (!Array.isArray(found)) return { definition: found };
      const slugs = found
        .map((row) => row.slug)
        .sort()
        .join(', ');
      return {
        problem: `${label} names ${found.length} definitions; give one of their slugs instead: ${slugs}`,
        ambiguous: true,
      };
    },
    /** A definitionMap value: an id or a slug. */
    byIdOrSlug: (value: string) => byId.get(value.trim()) ?? bySlug.get(value.trim()),
    /**
     * A provider course code: a slug (slugs are lower case, codes often are not), else the one
     * active definition with that course code (`humanCode`).
     */
    byCode(code: string): DefinitionRow | undefined {
      const slugged = bySlug.get(code.trim()) ?? bySlug.get(code.trim().toLowerCase());
      if (slugged) return slugged;
      const found = byHumanCode(code);
      return Array.isArray(found) ? undefined : found;
    },
  };
}

export type DefinitionResolver = ReturnType<typeof createDefinitionResolver>;
