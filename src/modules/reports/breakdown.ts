import { VERIFICATION_CHANNELS } from './reports.schemas.js';

/** Sums `count` per value of `key` over grouped rows (a handful of them, already aggregated in SQL). */
export function totalsBy<K extends string>(rows: readonly (Record<K, string> & { count: number })[], key: K) {
  const totals = new Map<string, number>();
  for (const row of rows) totals.set(row[key], (totals.get(row[key]) ?? 0) + row.count);
  return totals;
}

export function sum(values: Iterable<number>): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

export function channelCounts(byChannel: Map<string, number>) {
  return Object.fromEntries(VERIFICATION_CHANNELS.map((c) => [c, byChannel.get(c) ?? 0])) as Record<
    (typeof VERIFICATION_CHANNELS)[number],
    number
  >;
}

/** Name order, then slug (unique per issuer), by code unit so both engines and every locale agree. */
export function byName(a: { name: string; slug: string }, b: { name: string; slug: string }): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0;
}

/** All-time totals by effective status: the sums of the per-definition breakdown. */
export function statusTotals(rows: readonly { issued: number; valid: number; expired: number; revoked: number }[]) {
  return {
    issued: sum(rows.map((d) => d.issued)),
    valid: sum(rows.map((d) => d.valid)),
    expired: sum(rows.map((d) => d.expired)),
    revoked: sum(rows.map((d) => d.revoked)),
  };
}
