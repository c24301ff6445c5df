/** What the soak's parts share: arguments, the audio, counters and small statistics. */
import { execFileSync } from 'node:child_process';
import { JFK } from '../../test/support/audio.js';

export const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  const v = i > 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(v) || v < 0) throw new Error(`--${name} takes a number of at least 0`);
  return v;
};

export const CHUNK_MS = 100;
export const CHUNK_BYTES = 32 * CHUNK_MS;

/**
 * One loop of the live audio: jfk (11.0 s, 16 kHz s16le) and 1 s of silence, padded to whole
 * chunks. The pause ends the last sentence of each loop where the speaker ends it, so every
 * loop is recognized alike and a recording of whole loops has a known sentence count.
 */
export const LOOP: Buffer = (() => {
  const speech = execFileSync('ffmpeg', ['-v', 'error', '-i', JFK, '-f', 's16le', '-ar', '16000', '-ac', '1', 'pipe:1'], {
    maxBuffer: 64 << 20,
  });
  const withPause = speech.length + 32_000;
  return Buffer.concat([speech, Buffer.alloc(Math.ceil(withPause / CHUNK_BYTES) * CHUNK_BYTES - speech.length)]);
})();
export const LOOP_MS = (LOOP.length / CHUNK_BYTES) * CHUNK_MS;

export const errors = new Map<string, number>();
export const countError = (code: string) => errors.set(code, (errors.get(code) ?? 0) + 1);

export async function api<T>(base: string, key: string, path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const r = await fetch(`${base}${path}`, { ...init, headers: { 'x-api-key': key, ...(init.headers ?? {}) } });
  return { status: r.status, body: (await r.json()) as T };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

/** Least-squares slope of y over x. */
export function slope(points: { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const num = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const den = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return num / den;
}

/** The most frequent value (the expected one when nearly all agree). */
export function mode(values: number[]): number | undefined {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}
