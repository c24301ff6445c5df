/**
 * The Range header of audio playback (RFC 9110 §14): one byte range is served as 206; a
 * header that is malformed, not in bytes, or asks for several ranges is ignored (the whole
 * file, 200), as the RFC allows; a syntactically valid range that starts past the end is
 * unsatisfiable (416).
 */
export type RangeResult = { kind: 'full' } | { kind: 'partial'; start: number; end: number } | { kind: 'unsatisfiable' };

export function parseRange(header: string | undefined, size: number): RangeResult {
  if (header === undefined) return { kind: 'full' };
  const m = /^\s*bytes\s*=\s*(.*)$/i.exec(header);
  if (!m) return { kind: 'full' };
  const specs = (m[1] ?? '').split(',').map((s) => s.trim());
  if (specs.length !== 1) return { kind: 'full' };
  const spec = /^(\d*)-(\d*)$/.exec(specs[0] ?? '');
  if (!spec) return { kind: 'full' };
  const [, a = '', b = ''] = spec;
  if (a === '' && b === '') return { kind: 'full' };
  if (a === '') {
    // Suffix range: the last N bytes.
    const n = Number(b);
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(a);
  if (b !== '' && Number(b) < start) return { kind: 'full' }; // invalid: last < first
  if (start >= size) return { kind: 'unsatisfiable' };
  const end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  return { kind: 'partial', start, end };
}
