import { type RawBuilder, sql } from 'kysely';

/**
 * `value` bound as `cast(? as text)` rather than as a bare parameter, for a text column compared in
 * a statement that joins tables. Planning a join, SQLite checks each WHERE term against the partial
 * indexes' conditions (credentials, issuers' keys and others have some), and a bare parameter met
 * there marks the statement as planned for the value bound: every new binding then parses and plans
 * it again (sqlite3Reprepare; about 60 % of such a statement's instructions under callgrind, 20-90 µs
 * a call on the public reads and the issuance path, docs/performance.md 2026-12-03). A cast is no
 * parameter to the planner, compares the same text, and the index on the column still finds the row.
 * On PostgreSQL the cast of a text parameter to text changes nothing.
 */
export const boundText = (value: string): RawBuilder<string> => sql<string>`cast(${value} as text)`;
