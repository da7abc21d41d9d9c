import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.js';

/** The database types every layer shares: the migrations, the dialect helpers and the repositories. */
export type Dialect = 'sqlite' | 'postgres';
export type Db = Kysely<DB>;
export type Tx = Transaction<DB>;
/** Either the root handle or an open transaction: repositories accept both. */
export type Executor = Kysely<DB>;
