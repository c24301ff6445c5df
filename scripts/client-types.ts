/**
 * The client's types, generated from the served OpenAPI document (the route schemas are the
 * one source): for every operation `METHOD /path` its path, query and body input, its success
 * bodies, its error codes and, for SSE routes, each event's payload. Written to
 * src/client/api-types.ts by `npm run client:types`; test/client/api-types.test.ts fails when
 * the file is older than the document.
 *
 * Output types tolerate values added later (the interface: "clients must tolerate unknown
 * values"): a closed set of string literals in a response or event also admits any string.
 */

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is read as plain JSON
type Json = any;

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (k: string) => (IDENT.test(k) ? k : JSON.stringify(k));

/** A JSON schema as a TypeScript type; `out` marks response/event side (open string enums). */
export function tsType(s: Json, out: boolean, indent = ''): string {
  if (!s || typeof s !== 'object' || Object.keys(s).length === 0) return 'unknown';
  const members = s.anyOf ?? s.oneOf;
  if (members)
    return union(
      members.map((m: Json) => tsType(m, out, indent)),
      out,
    );
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum)
    return union(
      s.enum.map((v: unknown) => JSON.stringify(v)),
      out,
    );
  if (Array.isArray(s.type))
    return union(
      s.type.map((t: string) => tsType({ ...s, type: t }, out, indent)),
      out,
    );
  switch (s.type) {
    case 'null':
      return 'null';
    case 'boolean':
      return 'boolean';
    case 'integer':
    case 'number':
      return 'number';
    case 'string':
      return s.format === 'binary' ? 'Blob' : 'string';
    case 'array':
      return `${wrap(tsType(s.items, out, indent))}[]`;
    case 'object':
      return objectType(s, out, indent);
    default:
      return s.properties ? objectType(s, out, indent) : 'unknown';
  }
}

function wrap(t: string): string {
  return /^[A-Za-z0-9_.'"]+$/.test(t) || t.endsWith('}') ? t : `(${t})`;
}

const OPEN = '(string & {})';
const LITERAL_UNION = /^("[^"]*"|-?[0-9.]+|true|false|null|\(string & \{\}\))( \| ("[^"]*"|-?[0-9.]+|true|false|null|\(string & \{\}\)))*$/;

function union(types: string[], out: boolean): string {
  // Members that are themselves literal unions are flattened (objects and arrays are kept whole).
  const parts = [...new Set(types.flatMap((t) => (LITERAL_UNION.test(t) ? t.split(' | ') : [t])))];
  const literals = parts.filter((t) => t !== OPEN);
  // An all-literal string union on the output side stays open to values added later (once, at the end).
  const strings = literals.filter((t) => t !== 'null');
  if (out && strings.length > 0 && strings.every((t) => t.startsWith('"')))
    return [...strings, OPEN, ...(strings.length < literals.length ? ['null'] : [])].join(' | ');
  return literals.join(' | ');
}

function objectType(s: Json, out: boolean, indent: string): string {
  const props = Object.entries<Json>(s.properties ?? {});
  const required = new Set<string>(s.required ?? []);
  const inner = `${indent}  `;
  const lines = props.map(([k, v]) => {
    const doc = v.description ? `${inner}/** ${String(v.description).replace(/\*\//g, '* /')} */\n` : '';
    return `${doc}${inner}${key(k)}${required.has(k) ? '' : '?'}: ${tsType(v, out, inner)};`;
  });
  const extra = s.additionalProperties;
  if (extra && typeof extra === 'object') lines.push(`${inner}[key: string]: ${tsType(extra, out, inner)};`);
  else if (extra === true || (extra === undefined && props.length === 0)) lines.push(`${inner}[key: string]: unknown;`);
  if (lines.length === 0) return 'Record<string, never>';
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function inputOf(params: Json[], where: string, indent: string): string {
  const list = params.filter((p) => p.in === where);
  if (!list.length) return 'never';
  return objectType(
    {
      type: 'object',
      properties: Object.fromEntries(list.map((p) => [p.name, { ...p.schema, description: p.description ?? p.schema?.description }])),
      required: list.filter((p) => p.required && p.schema?.default === undefined).map((p) => p.name),
      additionalProperties: false,
    },
    false,
    indent,
  );
}

/** The TypeScript source of src/client/api-types.ts for an OpenAPI document. */
export function clientTypesSource(doc: Json, asyncapi: Json): string {
  const ops: string[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const ind = '    ';
      const params: Json[] = op.parameters ?? [];
      const bodyContent = op.requestBody?.content ?? {};
      const bodyType = Object.keys(bodyContent)[0];
      const body = bodyType ? tsType(bodyContent[bodyType].schema, false, ind) : 'never';
      const ok: string[] = [];
      const codes = new Set<string>();
      let events = 'never';
      for (const [status, r] of Object.entries<Json>(op.responses ?? {})) {
        if (!status.startsWith('2')) {
          for (const c of r['x-error-codes'] ?? r.content?.['application/json']?.schema?.['x-error-codes'] ?? []) codes.add(c);
          continue;
        }
        const content = r.content ?? {};
        const sse = content['text/event-stream']?.schema?.['x-sse-events'];
        if (sse) {
          const lines = Object.entries<Json>(sse).map(([name, schema]) => `      ${key(name)}: ${tsType(schema, true, '      ')};`);
          events = `{\n${lines.join('\n')}\n    }`;
        }
        const json = content['application/json']?.schema ?? (r.content ? undefined : r.type === 'null' ? { type: 'null' } : r);
        const type = json ? tsType(json, true, '      ') : Object.keys(content).length ? 'Blob' : 'null';
        ok.push(`      ${status}: ${type};`);
      }
      const summary = op.summary ? `  /** ${String(op.summary).replace(/\*\//g, '* /')} */\n` : '';
      ops.push(
        `${summary}  ${JSON.stringify(`${method.toUpperCase()} ${path}`)}: {\n` +
          `    path: ${inputOf(params, 'path', ind)};\n` +
          `    query: ${inputOf(params, 'query', ind)};\n` +
          `    body: ${body};\n` +
          `    bodyType: ${bodyType ? JSON.stringify(bodyType) : 'never'};\n` +
          `    responses: {\n${ok.join('\n')}\n    };\n` +
          `    errorCodes: ${codes.size ? [...codes].map((c) => JSON.stringify(c)).join(' | ') : 'never'};\n` +
          `    events: ${events};\n` +
          '  };',
      );
    }
  }
  return [
    '/**',
    ' * Generated by `npm run client:types` from the OpenAPI document the server serves (the',
    ' * route schemas of src/<feature>/routes.ts are the source). Do not edit by hand.',
    ' */',
    '',
    '/** Every operation of the REST/SSE interface, keyed "METHOD /path". */',
    'export interface Operations {',
    ops.join('\n'),
    '}',
    '',
    '/** Live WebSocket server events (`{type: "voice-translation", data: {action, ...}}`): action -> fields. */',
    `export interface LiveEvents ${liveMessages(asyncapi, 'event.', true)}`,
    '',
    '/** Live WebSocket client actions: action -> fields. */',
    `export interface LiveActions ${liveMessages(asyncapi, 'action.', false)}`,
    '',
  ].join('\n');
}

/** The AsyncAPI messages with a prefix, as an interface body: action name -> data fields (without `action`). */
function liveMessages(asyncapi: Json, prefix: string, out: boolean): string {
  const lines: string[] = [];
  for (const [id, m] of Object.entries<Json>(asyncapi.channels.live.messages)) {
    if (!id.startsWith(prefix)) continue;
    const data = m.payload.properties.data;
    const { action: _action, ...properties } = data.properties ?? {};
    const fields = {
      ...data,
      properties,
      required: (data.required ?? []).filter((r: string) => r !== 'action'),
      additionalProperties: undefined,
    };
    const doc = m.summary ? `  /** ${String(m.summary).replace(/\*\//g, '* /')} */\n` : '';
    lines.push(`${doc}  ${key(id.slice(prefix.length))}: ${tsType(fields, out, '  ')};`);
  }
  return `{\n${lines.join('\n')}\n}`;
}
