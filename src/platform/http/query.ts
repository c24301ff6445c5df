/**
 * Query-string parameters of paged lists (imports, broadcasts), checked by hand rather than by
 * a JSON schema so each bad value gets `validation_failed` with the field and its bounds.
 */
import { AppError } from '../errors/app-error.js';

/** A whole number in [min, max]; `fallback` when the parameter is absent. */
export function intParam(query: Record<string, unknown>, name: string, min: number, max: number, fallback: number): number {
  const raw = query[name];
  if (raw === undefined) return fallback;
  const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new AppError('validation_failed', {
      message: `${name} must be a whole number from ${min} to ${max}.`,
      details: { field: name, min, max },
    });
  }
  return n;
}

/** `page`, `per_page` (within `perPage` bounds, `fallback` when absent) and an optional `status` filter. */
export function pagedStatusQuery<S extends string>(
  query: Record<string, unknown>,
  statuses: readonly S[],
  perPage: { min: number; max: number; fallback: number },
): { page: number; perPage: number; status: S | null } {
  const status = query.status === undefined ? null : String(query.status);
  if (status !== null && !(statuses as readonly string[]).includes(status)) {
    throw new AppError('validation_failed', {
      message: `status must be one of ${statuses.join(', ')}.`,
      details: { field: 'status', valid_values: statuses },
    });
  }
  return {
    page: intParam(query, 'page', 1, 100_000, 1),
    perPage: intParam(query, 'per_page', perPage.min, perPage.max, perPage.fallback),
    status: status as S | null,
  };
}
