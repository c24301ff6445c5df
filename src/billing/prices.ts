/**
 * The one place that turns usage into points, from the price table in configuration
 * (settings.ts). Live recordings and broadcasts are charged per started minute; imports per
 * minute rounded up; one-off operations per unit. The import quota check's `estimated_points`
 * uses `importEstimate` (speech recognition only, as the spec says); its `estimate` extension
 * the full `importBreakdown`.
 */
import type { SectionValues } from '../platform/config/settings.js';
import type { billingSettings } from './settings.js';

export type PriceTable = SectionValues<typeof billingSettings>;

export interface MinuteOptions {
  /** Number of translation target languages. */
  translationLanguages?: number;
  /** multi_speaker recognition. */
  diarization?: boolean;
  tts?: boolean;
}

/** What an import costs, part by part (the check-quota `estimate` extension, docs/imports.md). */
export interface ImportBreakdown {
  recognition: number;
  translation: number;
  diarization: number;
  /** The summary is its own `summary` usage row, charged when it is made. */
  summary: number;
  total: number;
}

export type OneOffType = 'summary' | 'regen_summary' | 'retranslate' | 'summary_translate';

export class Prices {
  constructor(private readonly table: PriceTable) {}

  /** One minute of a live recording. */
  recordingMinute(o: MinuteOptions = {}): number {
    const t = this.table;
    return round(
      t.recordingPerMin +
        (o.translationLanguages ?? 0) * t.translationPerMinPerLang +
        (o.diarization ? t.diarizationPerMin : 0) +
        (o.tts ? t.ttsPerMin : 0),
    );
  }

  /** One minute of a broadcast (broadcasts always translate in real time). */
  broadcastMinute(o: MinuteOptions = {}): number {
    const t = this.table;
    return round(t.broadcastPerMin + (o.translationLanguages ?? 0) * t.translationPerMinPerLang + (o.tts ? t.ttsPerMin : 0));
  }

  /** Whole minutes billed for a duration: rounded up, at least one. */
  static billableMinutes(durationMs: number): number {
    return Math.max(1, Math.ceil(durationMs / 60_000));
  }

  /** The `import` usage row's charge for `durationMs`: recognition, translation and diarization. */
  importCost(durationMs: number, o: MinuteOptions = {}): number {
    const b = this.importBreakdown(durationMs, o);
    return round(b.recognition + b.translation + b.diarization);
  }

  /** Everything an import will cost: its `import` charge part by part, and the summary when one is asked for. */
  importBreakdown(durationMs: number, o: MinuteOptions & { summary?: boolean } = {}): ImportBreakdown {
    const t = this.table;
    const minutes = Prices.billableMinutes(durationMs);
    const parts = {
      recognition: round(minutes * t.importPerMin),
      translation: round(minutes * (o.translationLanguages ?? 0) * t.translationPerMinPerLang),
      diarization: round(o.diarization ? minutes * t.diarizationPerMin : 0),
      summary: o.summary ? t.summary : 0,
    };
    return { ...parts, total: round(parts.recognition + parts.translation + parts.diarization + parts.summary) };
  }

  /** The check-quota estimate: speech recognition only (translation and diarization come on top). */
  importEstimate(durationMs: number): number {
    return round(Prices.billableMinutes(durationMs) * this.table.importPerMin);
  }

  /** A one-off operation; `units` is the number of target languages where the price is per language. */
  oneOff(type: OneOffType, units = 1): number {
    const t = this.table;
    switch (type) {
      case 'summary':
        return t.summary;
      case 'regen_summary':
        return t.regenSummary;
      case 'retranslate':
        return round(t.retranslate * Math.max(1, units));
      case 'summary_translate':
        return round(t.summaryTranslate * Math.max(1, units));
    }
  }

  /**
   * Retranslation of some sentences (usage type `retranslate`): per sentence per language,
   * capped at the full-text price of those languages, so naming every sentence never costs more
   * than asking for the whole transcript.
   */
  retranslateSentences(sentences: number, languages = 1): number {
    const t = this.table;
    const n = Math.max(1, sentences);
    const l = Math.max(1, languages);
    return round(Math.min(t.retranslateSentence * n * l, t.retranslate * l));
  }
}

/** Prices are whole milli-points. */
function round(points: number): number {
  return Math.round(points * 1000) / 1000;
}
