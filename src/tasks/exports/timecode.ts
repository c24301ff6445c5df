/** Time stamps of the subtitle formats. */

function parts(ms: number): { h: number; m: number; s: number; f: number } {
  const t = Math.max(0, Math.round(ms));
  return { h: Math.floor(t / 3_600_000), m: Math.floor(t / 60_000) % 60, s: Math.floor(t / 1000) % 60, f: t % 1000 };
}

const p2 = (n: number) => String(n).padStart(2, '0');
const p3 = (n: number) => String(n).padStart(3, '0');

/** SRT: 00:01:02,345 */
export function srtTime(ms: number): string {
  const { h, m, s, f } = parts(ms);
  return `${p2(h)}:${p2(m)}:${p2(s)},${p3(f)}`;
}

/** WebVTT (and CSV): 00:01:02.345 (hours always written, so any length is valid). */
export function vttTime(ms: number): string {
  const { h, m, s, f } = parts(ms);
  return `${p2(h)}:${p2(m)}:${p2(s)}.${p3(f)}`;
}

/** SBV (YouTube): 0:01:02.345 */
export function sbvTime(ms: number): string {
  const { h, m, s, f } = parts(ms);
  return `${h}:${p2(m)}:${p2(s)}.${p3(f)}`;
}

/** TXT: [00:01:02] */
export function clockTime(ms: number): string {
  const { h, m, s } = parts(ms);
  return `${p2(h)}:${p2(m)}:${p2(s)}`;
}
