/** The bound on every JSON value a client sends (src/platform/json-bounds.ts): exact edges, and no recursion of its own. */
import { describe, expect, it } from 'vitest';
import { JSON_BOUNDS, jsonBoundsProblem } from '../../src/platform/json-bounds.js';

const nested = (depth: number, kind: 'object' | 'array') =>
  JSON.parse(`${(kind === 'object' ? '{"a":' : '[').repeat(depth)}1${(kind === 'object' ? '}' : ']').repeat(depth)}`);

describe('jsonBoundsProblem', () => {
  it.each(['object', 'array'] as const)('accepts %ss nested 64 deep and refuses 65', (kind) => {
    expect(jsonBoundsProblem(nested(JSON_BOUNDS.maxDepth, kind))).toBeNull();
    expect(jsonBoundsProblem(nested(JSON_BOUNDS.maxDepth + 1, kind))).toMatchObject({ reason: 'too_deep', limit: 64 });
  });

  it('checks a value nested 1,000,000 deep without overflowing the stack (JSON.stringify fails near 4,000)', () => {
    const deep = nested(1_000_000, 'array');
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    expect(jsonBoundsProblem(deep)).toMatchObject({ reason: 'too_deep' });
  });

  it('counts every member and element, the top-level value included', () => {
    const bounds = { maxDepth: 64, maxValues: 10 };
    expect(
      jsonBoundsProblem(
        Array.from({ length: 9 }, () => 0),
        bounds,
      ),
    ).toBeNull();
    expect(
      jsonBoundsProblem(
        Array.from({ length: 10 }, () => 0),
        bounds,
      ),
    ).toMatchObject({ reason: 'too_many_values', limit: 10 });
    expect(jsonBoundsProblem({ a: [1, 2, { b: [3, 4] }], c: {} }, bounds)).toBeNull();
    expect(jsonBoundsProblem({ a: [1, 2, { b: [3, 4, 5] }], c: {} }, bounds)).toBeNull();
    expect(jsonBoundsProblem({ a: [1, 2, { b: [3, 4, 5, 6] }], c: {} }, bounds)).toMatchObject({ reason: 'too_many_values' });
    expect(jsonBoundsProblem(Array.from({ length: JSON_BOUNDS.maxValues }, () => 0))).toMatchObject({ reason: 'too_many_values' });
  });

  it('takes scalars and own __proto__ keys as plain values', () => {
    for (const v of [null, 0, 'x', true]) expect(jsonBoundsProblem(v)).toBeNull();
    expect(jsonBoundsProblem(JSON.parse('{"__proto__":{"__proto__":{"polluted":true}}}'))).toBeNull();
    expect(jsonBoundsProblem(JSON.parse(`{"__proto__":${'['.repeat(100)}${']'.repeat(100)}}`))).toMatchObject({ reason: 'too_deep' });
  });
});
