/** Success bodies wrap results in `data` (spec: "JSON success bodies wrap results in data"). */
export function ok<T>(data: T): { data: T } {
  return { data };
}

/**
 * Envelopes of answers that many requests share while nothing changes, each mapped to its JSON
 * text once made (null before): `okShared` and `encodeBody`.
 */
const sharedBodies = new WeakMap<object, string | null>();
const envelopes = new WeakMap<object, { data: unknown }>();

/**
 * `ok` for a deeply frozen value that is handed out again while it holds (GET /me/plan's view of
 * a plan-bound key, rebuilt only when its limits report is): the same envelope each time, whose
 * JSON text the serializer writes once (issue 30: the plan-bound answer's feature lists made
 * JSON.stringify a tenth of the route's CPU).
 */
export function okShared<T extends object>(data: T): { data: T } {
  let envelope = envelopes.get(data);
  if (!envelope) {
    envelope = Object.freeze({ data });
    envelopes.set(data, envelope);
    sharedBodies.set(envelope, null);
  }
  return envelope as { data: T };
}

/** The response serializer (src/platform/http/server.ts): JSON text, kept for shared envelopes. */
export function encodeBody(body: unknown): string {
  if (typeof body !== 'object' || body === null) return JSON.stringify(body);
  const known = sharedBodies.get(body);
  if (known) return known;
  const text = JSON.stringify(body);
  if (known === null) sharedBodies.set(body, text);
  return text;
}
