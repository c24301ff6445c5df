/**
 * The two caption ingestion protocols a broadcast can feed (docs/broadcasts.md, "Caption
 * sinks"). Both take a continuous sequence of HTTP POSTs of plain UTF-8 text to a URL the
 * platform hands out, with a `seq` query parameter that grows by one for each POST of new
 * captions and stays the same when a POST is retried.
 *
 * - YouTube Live ("Closed captions over HTTP"): the body is one or more captions, each a line
 *   with its UTC time `YYYY-MM-DDTHH:MM:SS.mmm` (optionally followed by ` region:<region>`)
 *   and a line with its text; a line break inside a caption is `<br>`. Several captions may
 *   travel in one POST.
 * - Zoom (third-party closed captioning, the meeting's "API token" URL): the body is the
 *   caption text only, a line break is `\n`; `lang` (the language code, e.g. `en-US`) is added
 *   to the URL beside `seq`. One caption per POST.
 */

export type SinkKind = 'youtube' | 'zoom';
export const SINK_KINDS: readonly SinkKind[] = ['youtube', 'zoom'];

export interface Caption {
  text: string;
  /** When the sentence was spoken (wall clock). */
  at: Date;
}

export interface SinkFormat {
  kind: SinkKind;
  region: string | null;
  lineLength: number | null;
}

/** Most captions one YouTube POST carries (waiting captions travel together). */
export const YOUTUBE_BATCH = 10;

/** Captions per POST: YouTube takes several, Zoom one. */
export function batchSize(kind: SinkKind): number {
  return kind === 'youtube' ? YOUTUBE_BATCH : 1;
}

/** YouTube's caption time: UTC, milliseconds, no zone suffix. */
export function youtubeTime(at: Date): string {
  return at.toISOString().slice(0, 23);
}

/**
 * Breaks `text` into lines of at most `width` characters at spaces (a longer word stays
 * whole on its own line). Caption displays show a few short lines; null leaves the text whole.
 */
export function wrapLines(text: string, width: number | null): string[] {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (width === null) return [clean];
  const lines: string[] = [];
  let line = '';
  for (const word of clean.split(' ')) {
    if (line === '') line = word;
    else if ([...line].length + 1 + [...word].length <= width) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** The POST body for these captions. */
export function captionBody(f: SinkFormat, captions: readonly Caption[]): string {
  if (f.kind === 'zoom') return captions.map((c) => wrapLines(c.text, f.lineLength).join('\n')).join('\n');
  return captions
    .map((c) => {
      const head = f.region ? `${youtubeTime(c.at)} region:${f.region}` : youtubeTime(c.at);
      return `${head}\n${wrapLines(c.text, f.lineLength).join('<br>')}\n`;
    })
    .join('');
}

/**
 * The URL of one POST: the sink's URL with `seq` (and Zoom's `lang`) set. The platform's own
 * parameters are kept byte for byte (they carry a signature; re-encoding `ns=GZHkEA==` as
 * `%3D%3D` could break a check made on the raw query); a `seq` or `lang` already in the URL
 * is replaced.
 */
export function captionUrl(kind: SinkKind, url: string, seq: number, language: string): string {
  const hash = url.indexOf('#');
  const bare = hash >= 0 ? url.slice(0, hash) : url;
  const q = bare.indexOf('?');
  const base = q >= 0 ? bare.slice(0, q) : bare;
  const ours = kind === 'zoom' ? ['seq', 'lang'] : ['seq'];
  const kept = (q >= 0 ? bare.slice(q + 1).split('&') : []).filter((p) => p !== '' && !ours.includes(p.split('=')[0]!));
  const added = [`seq=${seq}`, ...(kind === 'zoom' ? [`lang=${encodeURIComponent(language)}`] : [])];
  return `${base}?${[...kept, ...added].join('&')}`;
}
