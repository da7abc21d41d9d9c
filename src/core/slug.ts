import { isUniqueViolation } from '../db/dialect.js';
import { errors } from './errors.js';

export const SLUG_PATTERN = '^[a-z0-9]+(-[a-z0-9]+)*$';
const MAX_SLUG = 64;

/** Lower-case kebab slug derived from a display name ("Data Science 101!" -> "data-science-101"). */
export function slugify(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG)
    .replace(/-+$/g, '');
  return base || 'item';
}

/** `base`, then `base-2`, `base-3`, ... trimmed so the result stays within the slug length. */
export function slugCandidate(base: string, attempt: number): string {
  if (attempt <= 1) return base;
  const suffix = `-${attempt}`;
  return `${base.slice(0, MAX_SLUG - suffix.length).replace(/-+$/g, '')}${suffix}`;
}

const MAX_SLUG_CANDIDATES = 50;
const MAX_INSERT_ATTEMPTS = 3;

/** The first of `base`, `base-2`, `base-3`, ... that is not taken. */
export function firstFreeSlug(base: string, taken: ReadonlySet<string>): string {
  for (let attempt = 1; attempt <= MAX_SLUG_CANDIDATES; attempt++) {
    const candidate = slugCandidate(base, attempt);
    if (!taken.has(candidate)) return candidate;
  }
  return slugCandidate(base, taken.size + 1 + Math.floor(Math.random() * 1000));
}

/**
 * Inserts under a slug unique per issuer. An explicit slug that is taken is the caller's conflict
 * (409 slug_taken); a derived one that a concurrent create took meanwhile is derived again.
 */
export async function createWithSlug<T>(options: {
  explicit: string | undefined;
  name: string;
  taken: (base: string) => Promise<ReadonlySet<string>>;
  insert: (slug: string) => Promise<T>;
}): Promise<T> {
  for (let attempt = 0; attempt < MAX_INSERT_ATTEMPTS; attempt++) {
    const base = slugify(options.name);
    const slug = options.explicit ?? firstFreeSlug(base, await options.taken(base));
    try {
      return await options.insert(slug);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      if (options.explicit !== undefined) throw errors.slugTaken(slug);
    }
  }
  throw errors.slugTaken(slugify(options.name));
}
