/**
 * The engine registry: built once from configuration (see `catalog.ts`), it picks the
 * engine for each (kind, language). The domain asks the registry; it never imports a
 * concrete engine.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { baseLanguage, languageServes } from '../languages.js';
import type {
  AnyEngine,
  Diarizer,
  EngineKind,
  EngineTier,
  FileRecognizer,
  LanguageModel,
  SpokenLanguageIdentifier,
  StreamingRecognizer,
  Summarizer,
  Synthesizer,
  TextLanguageIdentifier,
  Translator,
  VoiceActivityDetector,
} from './types.js';

export interface EngineContext {
  config: Config;
  /** Folder for downloaded models. */
  modelsDir: string;
  logger: Logger;
}

/** Result of trying to create an engine: the engine, or why it is not available here. */
export type FactoryResult = AnyEngine | { unavailable: string };

export interface EngineFactory {
  id: string;
  kind: EngineKind;
  tier: EngineTier;
  /** One line for operators: what it is and where it comes from. */
  summary: string;
  create(ctx: EngineContext): Promise<FactoryResult>;
}

export interface EngineStatus {
  id: string;
  kind: EngineKind;
  tier: EngineTier;
  summary: string;
  available: boolean;
  reason?: string;
  languages: readonly string[];
  pairs?: ReadonlyArray<readonly [string, string]>;
  capabilities: Record<string, unknown>;
}

export class EngineRegistry {
  private constructor(
    private readonly engines: AnyEngine[],
    readonly status: EngineStatus[],
  ) {}

  static async create(ctx: EngineContext, catalog: EngineFactory[]): Promise<EngineRegistry> {
    const engines: AnyEngine[] = [];
    const status: EngineStatus[] = [];
    for (const f of catalog) {
      let result: FactoryResult;
      try {
        result = await f.create(ctx);
      } catch (err) {
        result = { unavailable: err instanceof Error ? err.message : String(err) };
      }
      if ('unavailable' in result) {
        status.push({
          id: f.id,
          kind: f.kind,
          tier: f.tier,
          summary: f.summary,
          available: false,
          reason: result.unavailable,
          languages: [],
          capabilities: {},
        });
        continue;
      }
      engines.push(result);
      const { languages, pairs, ...caps } = result.capabilities;
      status.push({ id: f.id, kind: f.kind, tier: f.tier, summary: f.summary, available: true, languages, pairs, capabilities: caps });
    }
    return new EngineRegistry(engines, status);
  }

  /** Builds a registry from already-constructed engines (tests, CLI). */
  static fromEngines(engines: AnyEngine[]): EngineRegistry {
    const status = engines.map((e) => {
      const { languages, pairs, ...caps } = e.capabilities;
      return { id: e.id, kind: e.kind, tier: e.tier, summary: e.id, available: true, languages, pairs, capabilities: caps };
    });
    return new EngineRegistry(engines, status);
  }

  private first<T extends AnyEngine>(kind: T['kind'], language?: string): T | undefined {
    return this.engines.find(
      (e): e is T => e.kind === kind && (language === undefined || e.capabilities.languages.some((l) => languageServes(l, language))),
    );
  }

  /** Languages served by at least one engine of `kind`. */
  languagesFor(kind: EngineKind): string[] {
    return [...new Set(this.engines.filter((e) => e.kind === kind).flatMap((e) => e.capabilities.languages))];
  }

  streamingRecognizer(language: string) {
    return this.first<StreamingRecognizer>('streaming-stt', language);
  }
  fileRecognizer(language: string) {
    return this.first<FileRecognizer>('file-stt', language);
  }
  vad() {
    return this.first<VoiceActivityDetector>('vad');
  }
  diarizer() {
    return this.first<Diarizer>('diarizer');
  }
  languageIdentifier() {
    return this.first<TextLanguageIdentifier>('language-id');
  }
  spokenLanguageIdentifier() {
    return this.first<SpokenLanguageIdentifier>('spoken-language-id');
  }
  llm() {
    return this.first<LanguageModel>('llm');
  }
  summarizer(language: string) {
    return this.first<Summarizer>('summarizer', language) ?? this.first<Summarizer>('summarizer');
  }
  synthesizer(language: string) {
    return this.first<Synthesizer>('tts', language);
  }

  /** Translators that serve from -> to directly. */
  private directTranslator(from: string, to: string): Translator | undefined {
    return this.engines.find(
      (e): e is Translator =>
        e.kind === 'translator' && (e.capabilities.pairs ?? []).some(([f, t]) => languageServes(f, from) && languageServes(t, to)),
    );
  }

  /**
   * A translator for from -> to: direct when an engine serves the pair, otherwise through
   * one pivot language that two engines connect (e.g. en -> es -> fr). Undefined when no
   * path exists. Same base language with different script (zh-TW -> zh-CN) is a direct pair
   * of the script converter.
   */
  translator(from: string, to: string): Translator | undefined {
    const direct = this.directTranslator(from, to);
    if (direct) return direct;
    const pivots = new Set(
      this.engines.filter((e) => e.kind === 'translator').flatMap((e) => (e.capabilities.pairs ?? []).map(([, t]) => t)),
    );
    for (const pivot of pivots) {
      if (baseLanguage(pivot) === baseLanguage(from) || baseLanguage(pivot) === baseLanguage(to)) continue;
      const a = this.directTranslator(from, pivot);
      const b = a && this.directTranslator(pivot, to);
      if (a && b) return pivotTranslator(a, b, pivot);
    }
    return undefined;
  }

  /** Every directed pair reachable (directly or through one pivot), for docs and validation. */
  translationPairs(): Array<[string, string]> {
    const langs = new Set(this.engines.filter((e) => e.kind === 'translator').flatMap((e) => (e.capabilities.pairs ?? []).flat()));
    const out: Array<[string, string]> = [];
    for (const f of langs) for (const t of langs) if (f !== t && this.translator(f, t)) out.push([f, t]);
    return out;
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.engines.map((e) => e.close?.()));
  }
}

function pivotTranslator(a: Translator, b: Translator, pivot: string): Translator {
  return {
    id: `${a.id}+${b.id}`,
    kind: 'translator',
    tier: a.tier,
    capabilities: { languages: [], pairs: [] },
    async translate(text, options) {
      const mid = await a.translate(text, { from: options.from, to: pivot, signal: options.signal });
      return b.translate(mid, { from: pivot, to: options.to, signal: options.signal });
    },
  };
}
