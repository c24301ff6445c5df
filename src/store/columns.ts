/**
 * Portable column helpers shared by migrations and stores: the conventions of database.ts
 * (ISO text timestamps, 0/1 flags, integer milli-points) in one place.
 */
import type { ColumnDataType } from 'kysely';

export const types = {
  id: 'text',
  timestamp: 'text',
  flag: 'integer',
  /** Integer milli-points (1 point = 1000). */
  millipoints: 'bigint',
  json: 'text',
} as const satisfies Record<string, ColumnDataType>;

export const MILLI = 1000;

export function toMilli(points: number): number {
  return Math.round(points * MILLI);
}

export function fromMilli(milli: number): number {
  return milli / MILLI;
}

export function nowIso(now: Date = new Date()): string {
  return now.toISOString();
}

export function flag(b: boolean): 0 | 1 {
  return b ? 1 : 0;
}

export function parseJson<T>(text: string | null, fallback: T): T {
  if (text === null || text === '') return fallback;
  return JSON.parse(text) as T;
}
