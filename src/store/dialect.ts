/** The SQL databases the store drives through one Kysely query builder. */
export type Dialect = 'sqlite' | 'postgres';
