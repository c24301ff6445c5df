/**
 * Transcript writers: TXT, SRT, SBV, WebVTT and CSV (RFC 4180). Each takes the sentences in
 * order and returns the file text. Cue formats never contain a blank line inside a cue (it
 * would end the cue early) and never an end time before the start.
 */
import type { SentenceRecord } from '../store.js';
import { clockTime, sbvTime, srtTime, vttTime } from './timecode.js';

export const EXPORT_FORMATS = ['txt', 'srt', 'sbv', 'vtt', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportInput {
  sentences: SentenceRecord[];
  /** Current display labels: original speaker id -> alias. */
  labels: Record<string, string>;
  /** Translation language to write instead of the original text (sentences without one keep the original). */
  language: string | null;
  /** Prefix each line with the speaker's display label. */
  speakers: boolean;
  /** CSV: translation columns to add (all of the task's, or the one asked for). */
  translationColumns: string[];
}

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  txt: 'text/plain; charset=utf-8',
  srt: 'application/x-subrip; charset=utf-8',
  sbv: 'text/plain; charset=utf-8',
  vtt: 'text/vtt; charset=utf-8',
  csv: 'text/csv; charset=utf-8; header=present',
};

function label(s: SentenceRecord, labels: Record<string, string>): string | null {
  if (s.speakerId === null || s.speakerId === '') return null;
  return Object.hasOwn(labels, s.speakerId) ? (labels[s.speakerId] as string) : s.speakerId;
}

function textOf(s: SentenceRecord, language: string | null): string {
  if (language && s.translations && typeof s.translations[language] === 'string') return s.translations[language];
  return s.origin;
}

/** Non-empty lines of a text, control characters removed. */
function lines(text: string): string[] {
  return (
    text
      .replace(/\r\n?/g, '\n')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.length > 0)
  );
}

interface Cue {
  index: number;
  start: number;
  end: number;
  speaker: string | null;
  lines: string[];
}

function cues(input: ExportInput): Cue[] {
  const out: Cue[] = [];
  for (const s of input.sentences) {
    const ls = lines(textOf(s, input.language));
    if (ls.length === 0) continue;
    const start = Math.max(0, s.startMs);
    // A cue must end after it starts; a zero-length sentence gets one second.
    const end = s.endMs > start ? s.endMs : start + 1000;
    out.push({ index: 0, start, end, speaker: input.speakers ? label(s, input.labels) : null, lines: ls });
  }
  // Subtitle cues must come in start-time order (WebVTT requires it; players assume it),
  // while sids of different speakers or channels may interleave in time. Sort is stable.
  out.sort((a, b) => a.start - b.start);
  out.forEach((c, i) => {
    c.index = i + 1;
  });
  return out;
}

/** "-->" would read as a timing line in SRT/SBV; write an arrow instead. */
const noArrow = (l: string) => l.replace(/-->/g, '→');

function withSpeaker(c: Cue, ls: string[]): string[] {
  if (!c.speaker || ls.length === 0) return ls;
  return [`${c.speaker}: ${ls[0]}`, ...ls.slice(1)];
}

export function writeTxt(input: ExportInput): string {
  return cues(input)
    .map((c) => `[${clockTime(c.start)}] ${c.speaker ? `${c.speaker}: ` : ''}${c.lines.join(' ')}`)
    .join('\n')
    .concat('\n');
}

export function writeSrt(input: ExportInput): string {
  return cues(input)
    .map((c) => `${c.index}\n${srtTime(c.start)} --> ${srtTime(c.end)}\n${withSpeaker(c, c.lines.map(noArrow)).join('\n')}\n`)
    .join('\n');
}

export function writeSbv(input: ExportInput): string {
  return cues(input)
    .map((c) => `${sbvTime(c.start)},${sbvTime(c.end)}\n${withSpeaker(c, c.lines.map(noArrow)).join('\n')}\n`)
    .join('\n');
}

const vttEscape = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** WebVTT with the speaker as a voice span (`<v Name>`), which players show and parsers keep. */
export function writeVtt(input: ExportInput): string {
  const body = cues(input).map((c) => {
    const text = c.lines.map(vttEscape);
    if (c.speaker) text[0] = `<v ${vttEscape(c.speaker)}>${text[0]}`;
    if (c.speaker) text[text.length - 1] = `${text[text.length - 1]}</v>`;
    return `${c.index}\n${vttTime(c.start)} --> ${vttTime(c.end)}\n${text.join('\n')}\n`;
  });
  return `WEBVTT\n\n${body.join('\n')}`;
}

/**
 * A cell a spreadsheet would run as a formula (CSV injection): one that starts with `=`, `+`,
 * `-`, `@`, a tab or a carriage return. Speaker labels, recognized text (glossary corrections
 * included) and translations come from users and speech, so any of them can.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * RFC 4180 field: quoted when it holds a quote, comma or line break; quotes doubled. A cell
 * that would start a formula is neutralized as OWASP recommends: a single quote in front
 * (spreadsheets then show it as text) and the cell quoted. The quote is visible in the file:
 * the price of safety for a reader who opens it in a spreadsheet.
 */
export function csvField(v: string): string {
  if (FORMULA_START.test(v)) return `"'${v.replace(/"/g, '""')}"`;
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/**
 * CSV per RFC 4180 (CRLF records, header row) with a UTF-8 byte order mark, so spreadsheet
 * programs read Chinese and other non-Latin text as UTF-8. The original text keeps its line
 * breaks (quoted). Cells that would be formulas are neutralized (`csvField`).
 */
export function writeCsv(input: ExportInput): string {
  const header = [
    'sid',
    'start',
    'end',
    ...(input.speakers ? ['speaker'] : []),
    'text',
    ...input.translationColumns.map((l) => `translation_${l}`),
  ];
  const rows = [header.map(csvField).join(',')];
  for (const s of input.sentences) {
    const fields = [String(s.sid), vttTime(s.startMs), vttTime(Math.max(s.endMs, s.startMs))];
    if (input.speakers) fields.push(label(s, input.labels) ?? '');
    fields.push(s.origin);
    for (const l of input.translationColumns) fields.push(s.translations?.[l] ?? '');
    rows.push(fields.map(csvField).join(','));
  }
  return `\uFEFF${rows.join('\r\n')}\r\n`;
}

export const WRITERS: Record<ExportFormat, (input: ExportInput) => string> = {
  txt: writeTxt,
  srt: writeSrt,
  sbv: writeSbv,
  vtt: writeVtt,
  csv: writeCsv,
};

/**
 * Content-Disposition for a download: an ASCII fallback `filename` and the exact UTF-8 name
 * in `filename*` (RFC 6266 / RFC 8187).
 */
export function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\%;]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** A file name from a task title: characters file systems refuse are replaced. */
export function safeBaseName(title: string, fallback: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are not allowed in file names
  const cleaned = title.replace(/[\u0000-\u001f\u007f/\\:*?"<>|]/g, '_').trim();
  return cleaned.length ? cleaned.slice(0, 100) : fallback;
}
