/**
 * The one bound on the shape of every JSON value Parley accepts from a client: REST bodies
 * (src/platform/http/server.ts), WebSocket messages (src/realtime/protocol.ts) and the
 * glossary fields sent as JSON text (src/glossary/validate.ts, the import form). It is checked
 * right after parsing, before any code walks the value.
 *
 * Why: JSON.parse itself is iterative (Node 20 parses objects nested 5,000,000 deep), but
 * JSON.stringify and every recursive validator are not: JSON.stringify overflows the stack
 * at about 4,000 levels (fewer when the call stack is already deep), and a RangeError thrown
 * in a WebSocket message handler ended the process (issue 26, finding 1). The bytes of a
 * value are bounded by each transport (PARLEY_BODY_LIMIT_BYTES, PARLEY_WS_MAX_FRAME_BYTES,
 * PARLEY_GLOSSARY_MAX_BYTES); the count of values is bounded here too, so a raised byte
 * limit never lets the walks that follow grow without bound.
 *
 * Not settings: the deepest structure the interface defines is 4 levels (a glossary:
 * field, language, entry, variants), so 64 leaves room for any client's envelope, and
 * 500,000 values is about what the densest 1 MB of JSON holds (`[0,0,...]`); nobody needs to
 * change them (docs/live-sessions.md "Limits on JSON input").
 */
export const JSON_BOUNDS = {
  /** Objects and arrays nested in each other; the top-level value is level 1. */
  maxDepth: 64,
  /** Values in all (every object member and array element, the top-level value included). */
  maxValues: 500_000,
} as const;

export type JsonBounds = { readonly maxDepth: number; readonly maxValues: number };

export interface JsonBoundsProblem {
  reason: 'too_deep' | 'too_many_values';
  limit: number;
  message: string;
}

/**
 * The first bound a parsed JSON value passes, or null. Iterative (an explicit stack, never
 * recursion) and stops at the first excess, so its own cost is bounded by the limits.
 */
export function jsonBoundsProblem(value: unknown, bounds: JsonBounds = JSON_BOUNDS): JsonBoundsProblem | null {
  if (typeof value !== 'object' || value === null) return null;
  const values: unknown[] = [value];
  const depths: number[] = [1];
  let seen = 1;
  while (values.length > 0) {
    const v = values.pop() as object;
    const depth = depths.pop() as number;
    if (depth > bounds.maxDepth) {
      return { reason: 'too_deep', limit: bounds.maxDepth, message: `JSON nested deeper than ${bounds.maxDepth} levels is not accepted.` };
    }
    const children: unknown[] = Array.isArray(v) ? v : Object.values(v);
    seen += children.length;
    if (seen > bounds.maxValues) {
      return {
        reason: 'too_many_values',
        limit: bounds.maxValues,
        message: `JSON with more than ${bounds.maxValues} values (members and elements) is not accepted.`,
      };
    }
    for (const c of children) {
      if (typeof c === 'object' && c !== null) {
        values.push(c);
        depths.push(depth + 1);
      }
    }
  }
  return null;
}
