/**
 * The table `npm run -s engines` prints: per engine kind, which requirements of
 * `select(need)` (src/engines/needs.ts) each engine meets, from the same declared
 * capabilities the registry decides by. Rows are in preference order (the first available
 * row that meets a need is the one selected); unavailable engines show why.
 */
import { ENGINE_KINDS } from '../engines/needs.js';
import type { EngineStatus } from '../engines/registry.js';
import type { EngineKind } from '../engines/types.js';

type Column = [header: string, cell: (s: EngineStatus) => string];

const yes = (v: unknown) => (v === true ? 'yes' : 'no');
const languages = (s: EngineStatus) =>
  s.languages.length > 6 ? `${s.languages.slice(0, 6).join(' ')} +${s.languages.length - 6}` : s.languages.join(' ');
const recognizer: Column[] = [
  ['languages', languages],
  ['word times', (s) => yes(s.capabilities.wordTimes)],
  ['diarization', (s) => yes(s.capabilities.diarization)],
  ['channels', (s) => String(s.capabilities.channels ?? 1)],
  // multi_language: tells the spoken language among the requested ones.
  ['detects language', (s) => yes(s.capabilities.languageDetection)],
];

/** The requirement columns of each kind (the fields its need can ask for). */
export const KIND_COLUMNS: Record<EngineKind, Column[]> = {
  'streaming-stt': [...recognizer.slice(0, 1), ['interim', (s) => yes(s.capabilities.interimResults)], ...recognizer.slice(1)],
  'file-stt': recognizer,
  vad: [],
  diarizer: [],
  'language-id': [['languages', languages]],
  'spoken-language-id': [['languages', languages]],
  translator: [['pairs', (s) => (s.pairs?.some(([f, t]) => f === '*' || t === '*') ? 'any' : `${s.pairs?.length ?? 0} pairs`)]],
  llm: [['streaming', (s) => yes(s.capabilities.streaming)]],
  summarizer: [['languages', languages]],
  tts: [
    ['languages', languages],
    ['streaming', (s) => yes(s.capabilities.streaming)],
    ['word times', (s) => yes(s.capabilities.wordTimes)],
  ],
};

export function requirementTable(status: readonly EngineStatus[]): string {
  const blocks: string[] = [];
  for (const kind of ENGINE_KINDS) {
    const rows = status.filter((s) => s.kind === kind);
    if (!rows.length) continue;
    const columns: Column[] = [['engine', (s) => s.id], ['tier', (s) => s.tier], ...KIND_COLUMNS[kind]];
    const cells = rows.map((s) => (s.available ? columns.map(([, cell]) => cell(s)) : [s.id, s.tier, `unavailable: ${s.reason}`]));
    // Engine and tier columns fit every row; the others the available rows (an unavailable row's reason runs on).
    const widths = columns.map(([h], i) =>
      Math.max(h.length, ...cells.filter((c) => i < 2 || c.length === columns.length).map((c) => c[i]?.length ?? 0)),
    );
    const line = (c: string[]) => `  ${c.map((v, i) => (i === c.length - 1 ? v : v.padEnd(widths[i] ?? 0))).join('  ')}`.trimEnd();
    blocks.push([kind, line(columns.map(([h]) => h)), ...cells.map(line)].join('\n'));
  }
  return blocks.join('\n\n');
}
