/**
 * Precompiled statements for the hot read paths. Building a Kysely query tree and compiling
 * it costs far more than running a small indexed query (about 100 µs for the plan-and-balance
 * read against 35 µs to run it), so such queries are built once per dialect with named
 * sentinel parameters, and each call only fills in the values.
 */
import { type Compilable, CompiledQuery } from 'kysely';

const MARK = '\u0000param:';

export type Param<N extends string> = (name: N) => string;

export function precompile<N extends string>(build: (param: Param<N>) => Compilable): (values: Record<N, unknown>) => CompiledQuery {
  const compiled = build((name) => `${MARK}${name}`).compile();
  const slots = compiled.parameters.map((v) => (typeof v === 'string' && v.startsWith(MARK) ? (v.slice(MARK.length) as N) : null));
  return (values) =>
    CompiledQuery.raw(
      compiled.sql,
      compiled.parameters.map((v, i) => {
        const slot = slots[i];
        return slot === null || slot === undefined ? v : values[slot];
      }),
    );
}
