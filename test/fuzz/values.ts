/**
 * Values for the fuzzer: a plausible value for a JSON schema (so a mutation lands deep in a
 * request that otherwise passes validation) and the bad values it mutates with (wrong types,
 * nulls, huge strings and arrays, unicode, path tricks, deep nesting, prototype keys, numbers
 * at the edges).
 *
 * Some bad values cannot be held as JavaScript values: nesting thousands deep breaks the
 * fuzzer's own JSON.stringify, `1e400` and `-0` do not survive it, and an own `__proto__` key
 * is lost on assignment. They travel as a placeholder string (a recipe, see `raw`) that
 * `toJson` replaces with the JSON text it stands for; a placeholder survives the copies and
 * mutations of the value, and a recipe costs no memory until the request is written.
 */
import type { Prng } from './prng.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON schemas from the OpenAPI document are open objects
export type Schema = Record<string, any>;

const LANGS = ['en-US', 'en', 'es', 'de-DE', 'fr', 'zh-CN', 'ja', 'xx', 'EN-us'];

/** Strings that break naive code: unicode edge cases, control characters, path and injection tricks. */
export const TRICKY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff\ud800',
  '😀🏳️‍🌈👨‍👩‍👧',
  '\u202eevil',
  'Ω≈ç√∫˜µ≤≥÷',
  '田中さんにあげて下さい',
  'ﷺ',
  '\r\n\t\v\f',
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%2e%2e%2f%2e%2e%2f',
  '%00',
  '%',
  '%zz',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '"; DROP TABLE tasks; --',
  '$' + '{jndi:ldap://x}',
  '{{7*7}}',
  '=HYPERLINK("http://example.com","x")',
  '__proto__',
  'constructor',
  'null',
  'undefined',
  'NaN',
  '-1',
  '1e309',
  'true',
  '[]',
  '{}',
  'http://169.254.169.254/latest/meta-data/',
  'file:///etc/passwd',
  'javascript:alert(1)',
  'svc_00000000000000000000000000000000',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  // Zero-width and direction controls, a combining mark, a BOM, a private-use and a non-character.
  '\u200b\u200c\u200d',
  '\u2066\u05e9\u05dc\u05d5\u05dd\u2069',
  '\u0627\u0644\u0633\u0644\u0627\u0645 abc',
  'e\u0301\u0301\u0301',
  '\ufeffbom',
  '\ue000\uffff\ufffe',
  '\u{1f600}'.repeat(3),
  'a\ud83d',
];

/** Marks a recipe placeholder (NUL never starts a real value the fuzzer sends). */
const RAW = '\u0000raw:';

/**
 * A placeholder for JSON text the fuzzer cannot hold as a value: `deep:<o|a|m>:<depth>`
 * (objects, arrays or both, nested), `array:<n>` (a flat array of n numbers), `num:<literal>`
 * (a number as written), `proto:<n>` (prototype-pollution shapes).
 */
export function raw(recipe: string): string {
  return `${RAW}${recipe}`;
}

const NUMBER_LITERALS = [
  '-0',
  '1e400',
  '-1e400',
  '1e-400',
  '9007199254740993',
  '-9223372036854775809',
  '18446744073709551616',
  '1.7976931348623157e308',
  '5e-324',
  '0.1e1',
  '1E+2',
  `1${'0'.repeat(400)}`,
  `0.${'0'.repeat(400)}1`,
];

const PROTO_SHAPES = [
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"__proto__":{"__proto__":{"polluted":true}}}',
  '{"a":{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"isAdmin":true}}}}',
  '{"__proto__":null,"toString":1,"valueOf":"x","hasOwnProperty":[]}',
];

function rawText(recipe: string): string {
  const [kind, a = '', b = ''] = recipe.split(':');
  if (kind === 'deep') {
    const depth = Number(b);
    // Objects, arrays, or both alternating; the innermost value a number.
    const open = a === 'o' ? '{"a":'.repeat(depth) : a === 'a' ? '['.repeat(depth) : '{"a":['.repeat(Math.ceil(depth / 2));
    const close = a === 'o' ? '}'.repeat(depth) : a === 'a' ? ']'.repeat(depth) : ']}'.repeat(Math.ceil(depth / 2));
    return `${open}1${close}`;
  }
  if (kind === 'array') return `[${'0,'.repeat(Math.max(0, Number(a) - 1))}0]`;
  if (kind === 'num') return recipe.slice('num:'.length);
  if (kind === 'proto') return PROTO_SHAPES[Number(a) % PROTO_SHAPES.length]!;
  return 'null';
}

const PLACEHOLDER = /"\\u0000raw:([^"]*)"/g;

/** JSON text of a value, placeholders replaced by the text their recipe stands for. */
export function toJson(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) return 'null';
  return text.includes('\\u0000raw:') ? text.replace(PLACEHOLDER, (_, recipe: string) => rawText(recipe)) : text;
}

/** A structure that breaks recursive code: nesting far past what JSON.stringify survives (about 4,000 levels), huge flat arrays. */
export function structural(prng: Prng): string {
  return prng.weighted<() => string>([
    [4, () => raw(`deep:${prng.pick(['o', 'a', 'm'])}:${prng.pick([64, 5_000, 5_000, 20_000, 100_000])}`)],
    [1, () => raw(`array:${prng.pick([10_000, 100_000])}`)],
    [2, () => raw(`proto:${prng.int(0, PROTO_SHAPES.length - 1)}`)],
    [2, () => raw(`num:${prng.pick(NUMBER_LITERALS)}`)],
  ])();
}

export function hugeString(prng: Prng): string {
  return prng.pick(['a', '😀', 'é', '\u0000', ' ', '%']).repeat(prng.pick([1_000, 70_000, 300_000]));
}

/** A bad value of any kind. */
export function badValue(prng: Prng, depth = 0): unknown {
  const kind = prng.int(0, 17);
  switch (kind) {
    case 16:
    case 17:
      return structural(prng);
    case 0:
      return null;
    case 1:
      return prng.pick([true, false]);
    case 2:
      return prng.pick([0, -1, 1.5, -0.0001, 2 ** 53 + 1, -(2 ** 63), 1e308, -1e308, 4294967296, 99999999999]);
    case 3:
    case 4:
      return prng.pick(TRICKY_STRINGS);
    case 5:
      return hugeString(prng);
    case 6:
      return [];
    case 7:
      return {};
    case 8:
      return Array.from({ length: prng.pick([100, 10_000, 50_000]) }, (_, i) => (prng.chance(0.5) ? i : 'x'));
    case 9:
      return depth < 2 ? [badValue(prng, depth + 1), badValue(prng, depth + 1)] : 'x';
    case 10:
      return depth < 2 ? { [prng.pick(['__proto__', 'constructor', 'prototype', 'x', ''])]: badValue(prng, depth + 1) } : {};
    case 11:
      return nested(prng.pick([50, 500, 3000]));
    case 12:
      return Object.fromEntries(Array.from({ length: prng.pick([100, 5_000]) }, (_, i) => [`k${i}`, i]));
    case 13:
      return prng.pick(LANGS);
    case 14:
      return prng.pick(['2026-13-45T99:99:99Z', '1970-01-01T00:00:00Z', '9999-12-31T23:59:59Z', 'yesterday']);
    default:
      return String(prng.int(-5, 5));
  }
}

function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

/** A value the schema probably accepts (enums, formats and bounds respected where declared). */
export function plausible(
  schema: Schema | undefined,
  prng: Prng,
  hints: Record<string, unknown> = {},
  name = '',
  depth = 0,
  optional?: number,
): unknown {
  if (!schema || depth > 6) return 'x';
  // How often optional fields are filled, drawn once per value: sometimes only the required ones.
  const fill = optional ?? prng.pick([0, 0.3, 0.6]);
  if (name && name in hints && prng.chance(0.8)) return hints[name];
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return prng.pick(schema.enum);
  const alts = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alts) && alts.length) return plausible(prng.pick(alts), prng, hints, name, depth + 1, fill);
  if (Array.isArray(schema.allOf) && schema.allOf.length) return plausible(schema.allOf[0], prng, hints, name, depth + 1, fill);
  const type = Array.isArray(schema.type) ? prng.pick(schema.type.filter((t: string) => t !== 'null')) : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const required = new Set<string>(schema.required ?? []);
      for (const [k, s] of Object.entries<Schema>(schema.properties ?? {})) {
        if (required.has(k) || prng.chance(fill)) out[k] = plausible(s, prng, hints, k, depth + 1, fill);
      }
      return out;
    }
    case 'array': {
      const min = schema.minItems ?? 0;
      const max = Math.min(schema.maxItems ?? 3, min + 3);
      return Array.from({ length: prng.int(min, Math.max(min, max)) }, () => plausible(schema.items, prng, hints, name, depth + 1, fill));
    }
    case 'integer':
      return prng.int(schema.minimum ?? 0, Math.min(schema.maximum ?? 10, (schema.minimum ?? 0) + 10));
    case 'number':
      return (schema.minimum ?? 0) + prng.next();
    case 'boolean':
      return prng.chance(0.5);
    case 'null':
      return null;
    case 'string': {
      if (schema.format === 'uuid') return (hints.uuid as string) ?? '00000000-0000-4000-8000-000000000000';
      if (schema.format === 'date-time') return new Date(Date.UTC(2026, 0, 1)).toISOString();
      if (schema.format === 'uri' || /url/i.test(name)) return 'http://127.0.0.1:9/hook';
      if (/language/i.test(name)) return prng.pick(LANGS);
      const min = schema.minLength ?? 1;
      const max = Math.min(schema.maxLength ?? 12, 40);
      return 'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(3).slice(0, prng.int(min, Math.max(min, max)));
    }
    default:
      return prng.pick(['x', 1, true]);
  }
}

/** Paths to every value inside a JSON value (for picking a spot to mutate). */
function spots(v: unknown, path: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(path);
  if (typeof v === 'string' && v.startsWith(RAW)) return out;
  if (path.length > 5) return out;
  if (Array.isArray(v)) {
    for (const [i, x] of v.slice(0, 5).entries()) spots(x, [...path, i], out);
  } else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) spots(x, [...path, k], out);
  return out;
}

/** One to three mutations of a (plausible) JSON value: bad values, deleted and extra fields. */
export function mutate(value: unknown, prng: Prng): { value: unknown; what: string } {
  let v = value === undefined ? undefined : JSON.parse(JSON.stringify(value));
  const done: string[] = [];
  for (let n = prng.int(1, 3); n > 0; n--) {
    const all = spots(v);
    const path = prng.pick(all);
    const op = prng.int(0, 3);
    if (path.length === 0) {
      if (op === 0) {
        v = badValue(prng);
        done.push('whole body replaced');
      } else if (v && typeof v === 'object' && !Array.isArray(v)) {
        setOwn(v as Record<string, unknown>, prng.pick(['extra', '__proto__', 'constructor', 'x'.repeat(300), 'task_id']), badValue(prng));
        done.push('extra field');
      }
      continue;
    }
    const parent = path.slice(0, -1).reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], v) as Record<
      string | number,
      unknown
    >;
    const key = path[path.length - 1]!;
    if (!parent || typeof parent !== 'object') continue;
    if (op === 0 && !Array.isArray(parent)) {
      delete parent[key];
      done.push(`${path.join('.')} deleted`);
    } else if (op === 1 && !Array.isArray(parent)) {
      setOwn(parent, prng.pick(['extra', '__proto__', 'id', '']), badValue(prng));
      done.push(`extra field beside ${path.join('.')}`);
    } else {
      parent[key] = badValue(prng);
      done.push(`${path.join('.')} = bad`);
    }
  }
  return { value: v, what: done.join(', ') || 'unchanged' };
}

/** An own property even for `__proto__` (an assignment would set the prototype and send nothing). */
function setOwn(o: Record<string | number, unknown>, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Short printable description of a value for a report. */
export function brief(v: unknown, max = 160): string {
  let s: string;
  try {
    s = typeof v === 'string' ? v : JSON.stringify(v);
  } catch {
    s = String(v);
  }
  if (s === undefined) s = String(v);
  return s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s;
}
