/**
 * Request checks of the task routes, done by hand rather than by schema: Fastify's
 * validator coerces types ("true" would pass as a boolean), and the spec asks for 422
 * `validation_failed` on exactly these mistakes.
 */

import { AppError } from '../platform/errors/app-error.js';
import { TASK_NAME_MAX, taskNameProblem } from './name.js';
import { UUID } from './service.js';
import { ACTIVE, type TaskStatus } from './status.js';

export const MAX_IDS = 100;

export function invalid(field: string, message: string, extra: Record<string, unknown> = {}): AppError {
  return new AppError('validation_failed', { message, details: { field, ...extra } });
}

export function bodyObject(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw invalid('body', 'The request body must be a JSON object.');
  return body as Record<string, unknown>;
}

export function requireBoolean(body: Record<string, unknown>, field: string): boolean {
  const v = body[field];
  if (typeof v !== 'boolean') throw invalid(field, `${field} is required and must be true or false.`);
  return v;
}

/** A list of 1..100 UUIDs (lower-cased). */
export function uuidList(value: unknown, field: string): string[] {
  const list = Array.isArray(value) ? value : undefined;
  if (!list) throw invalid(field, `${field} is required and must be an array of task ids.`);
  if (list.length === 0) throw invalid(field, `${field} must list at least one task id.`);
  if (list.length > MAX_IDS) throw invalid(field, `${field} lists ${list.length} ids; at most ${MAX_IDS} are allowed.`, { max: MAX_IDS });
  for (const id of list) {
    if (typeof id !== 'string' || !UUID.test(id)) throw invalid(field, `${field} contains a value that is not a UUID.`, { value: id });
  }
  return (list as string[]).map((id) => id.toLowerCase());
}

/**
 * The list filter of GET /tasks. `task_ids[]` arrives as one string or an array of them;
 * any other spelling of task_ids (no brackets, an index) is refused (spec rule 3).
 */
export function listQuery(query: Record<string, unknown>): { statuses: readonly TaskStatus[] | null; ids: string[] | null } {
  const status = query.status ?? 'completed';
  let statuses: readonly TaskStatus[] | null;
  if (status === 'completed') statuses = ['completed'];
  else if (status === 'active') statuses = ACTIVE;
  else if (status === 'all') statuses = null;
  else throw invalid('status', 'status must be completed, active or all.', { value: status });
  for (const key of Object.keys(query)) {
    if (key !== 'task_ids[]' && key.startsWith('task_ids')) {
      throw invalid('task_ids', 'Pass task ids as task_ids[]=<uuid> (with the brackets), once per id.', { parameter: key });
    }
  }
  const raw = query['task_ids[]'];
  if (raw === undefined) return { statuses, ids: null };
  return { statuses, ids: uuidList(Array.isArray(raw) ? raw : [raw], 'task_ids') };
}

/** A task name: trimmed, 1..60 characters, no control characters or line breaks. */
export function taskName(body: Record<string, unknown>): string {
  const v = body.name;
  if (typeof v !== 'string') throw invalid('name', 'name is required and must be a string.');
  const name = v.trim();
  const problem = taskNameProblem(name);
  if (problem) throw invalid('name', `name ${problem}.`, problem.includes('at most') ? { max: TASK_NAME_MAX } : {});
  return name;
}

export function oneOf<const V extends string>(query: Record<string, unknown>, field: string, values: readonly V[], fallback: V): V {
  const v = query[field];
  if (v === undefined || v === '') return fallback;
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) {
    throw invalid(field, `${field} must be one of ${values.join(', ')}.`, { value: v });
  }
  return v as V;
}

export function optionalBool(query: Record<string, unknown>, field: string): boolean | undefined {
  const v = query[field];
  if (v === undefined || v === '') return undefined;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw invalid(field, `${field} must be true or false.`, { value: v });
}

/** Route options with an OpenAPI summary. */
export function doc<T extends { schema: Record<string, unknown> }>(options: T, summary: string): T {
  return { ...options, schema: { ...options.schema, summary } };
}
