/**
 * The engine registry: built once from configuration (see `catalog.ts`), it answers
 * `select(need)` with the best engine that meets every requirement of the need, or a typed
 * refusal naming what is missing (`needs.ts`). The domain asks the registry; it never
 * imports a concrete engine.
 *
 * Preference among the engines that meet a need: tier order first (`PARLEY_ENGINE_TIERS`,
 * default remote, neural, builtin: an operator who configured a service or downloaded a
 * model gets it), then catalogue order within a tier. Two exceptions: a translation within
 * one base language (zh-TW -> zh-CN) goes to an engine that names the pair before an
 * any-pair engine, and a template summary goes to a summarizer whose `templates` capability
 * is not false (a small local LLM measured worse than the extractive summarizer). Translations no engine serves directly go through one pivot language.
 */
import type { Logger } from 'pino';
import { baseLanguage } from '../languages.js';
import {
  capabilitiesOf,
  ENGINE_KINDS,
  type Need,
  type NeedOf,
  namesPairExplicitly,
  type Refusal,
  type Requirement,
  refusalMessage,
  requirementsOf,
  type Selection,
  sameLanguageConversion,
  servesPair,
} from './needs.js';
import { type LanguageOffer, offeredLanguages } from './offer.js';
import type { EngineConfig } from './settings.js';
import { SharedResources } from './shared-resources.js';
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

export const DEFAULT_TIER_ORDER: readonly EngineTier[] = ['remote', 'neural', 'builtin'];

/** The engine type of each kind (what `select` returns). */
export interface EngineOfKind {
  'streaming-stt': StreamingRecognizer;
  'file-stt': FileRecognizer;
  vad: VoiceActivityDetector;
  diarizer: Diarizer;
  'language-id': TextLanguageIdentifier;
  'spoken-language-id': SpokenLanguageIdentifier;
  translator: Translator;
  llm: LanguageModel;
  summarizer: Summarizer;
  tts: Synthesizer;
}

export interface EngineContext {
  config: EngineConfig;
  /** Folder for downloaded models. */
  modelsDir: string;
  logger: Logger;
  /** Engines created before this factory (catalogue order): adapters wrap them. */
  loaded: readonly AnyEngine[];
  /**
   * Resources the factories of this registry share (shared-resources.ts); one per registry.
   * A factory called on its own (tests, benches) without one builds its resources for itself.
   */
  shared?: SharedResources;
}

/** Result of trying to create engines: one engine, several (an adapter per wrapped engine), or why not. */
export type FactoryResult = AnyEngine | AnyEngine[] | { unavailable: string };

export interface EngineFactory {
  id: string;
  kind: EngineKind;
  tier: EngineTier;
  /** One line for operators: what it is and where it comes from. */
  summary: string;
  /** Kinds this factory builds on (loaded too wherever this kind is loaded). */
  uses?: readonly EngineKind[];
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

export interface RegistryOptions {
  /** Tier preference, best first; tiers left out come last in default order. */
  tierOrder?: readonly EngineTier[];
  /** The kinds this registry was built for (default every kind): a kind left out is unknown here, not unserved. */
  kinds?: ReadonlySet<EngineKind>;
}

function statusOf(e: AnyEngine, summary: string): EngineStatus {
  const { languages, pairs, ...caps } = capabilitiesOf(e);
  return { id: e.id, kind: e.kind, tier: e.tier, summary, available: true, languages, pairs, capabilities: caps };
}

export class EngineRegistry {
  /** Engines in preference order (tier order, then catalogue order). */
  private readonly engines: AnyEngine[];
  /** Every engine of the catalogue (or given) with what it serves or why not, in preference order. */
  readonly status: EngineStatus[];
  /** The kinds this process loads (its roles'): for the others it cannot say what is served. */
  readonly loadedKinds: ReadonlySet<EngineKind>;
  private offer: LanguageOffer | undefined;

  private constructor(
    engines: AnyEngine[],
    status: EngineStatus[],
    private readonly options: RegistryOptions,
  ) {
    this.engines = byPreference(engines, options.tierOrder);
    this.status = byPreference(status, options.tierOrder);
    this.loadedKinds = options.kinds ?? new Set(ENGINE_KINDS);
  }

  /**
   * The same engines, each call of their timed operations reported to `observe` (metrics:
   * src/metrics/engines.ts). A new registry; this one is left as it is.
   */
  observed(wrap: (engine: AnyEngine) => AnyEngine): EngineRegistry {
    return new EngineRegistry(this.engines.map(wrap), this.status, this.options);
  }

  /**
   * Creates the engines of the catalogue, or only those of `kinds` (and the kinds their
   * factories build on). A factory that throws counts as unavailable, with its message.
   */
  static async create(
    ctx: Omit<EngineContext, 'loaded'>,
    catalog: readonly EngineFactory[],
    kinds?: ReadonlySet<EngineKind>,
  ): Promise<EngineRegistry> {
    const wanted = kinds ? withDependencies(kinds, catalog) : undefined;
    const engines: AnyEngine[] = [];
    const status: EngineStatus[] = [];
    const shared = ctx.shared ?? new SharedResources();
    for (const f of catalog) {
      if (wanted && !wanted.has(f.kind)) continue;
      let result: FactoryResult;
      try {
        result = await f.create({ ...ctx, loaded: [...engines], shared });
      } catch (err) {
        result = { unavailable: err instanceof Error ? err.message : String(err) };
      }
      if ('unavailable' in result) {
        const { id, kind, tier, summary } = f;
        status.push({ id, kind, tier, summary, available: false, reason: result.unavailable, languages: [], capabilities: {} });
        continue;
      }
      for (const e of Array.isArray(result) ? result : [result]) {
        engines.push(e);
        status.push(statusOf(e, f.summary));
      }
    }
    return new EngineRegistry(engines, status, { tierOrder: ctx.config.engines.tierOrder, kinds: wanted });
  }

  /** Builds a registry from already-constructed engines (tests, CLI). */
  static fromEngines(engines: AnyEngine[], options: RegistryOptions = {}): EngineRegistry {
    return new EngineRegistry(
      engines,
      engines.map((e) => statusOf(e, e.id)),
      options,
    );
  }

  /** Available engines of a kind, best first. */
  enginesOf<K extends EngineKind>(kind: K): EngineOfKind[K][] {
    return this.engines.filter((e): e is EngineOfKind[K] => e.kind === kind);
  }

  /**
   * The best engine that meets every requirement of `need`, or a refusal naming what the
   * closest engine lacks. Translators pivot through one language when no engine serves the
   * pair directly.
   */
  select<K extends EngineKind>(need: NeedOf<K>): Selection<EngineOfKind[K]> {
    const n = need as Need;
    const requirements = requirementsOf(n);
    const candidates = this.preferred(n, this.enginesOf(n.kind));
    const chosen = candidates.find((e) => requirements.every((r) => r.met(e)));
    if (chosen) return { ok: true, engine: chosen as EngineOfKind[K] };
    if (n.kind === 'translator') {
      const pivot = this.pivot(n.from, n.to);
      if (pivot) return { ok: true, engine: pivot as EngineOfKind[K] };
    }
    return { ok: false, refusal: refuse(n, requirements, candidates) };
  }

  /**
   * The selected engine or undefined: for tests, benches and checks that report the
   * refusal themselves. Services answer a refusal with its error (`select`).
   */
  find<K extends EngineKind>(need: NeedOf<K>): EngineOfKind[K] | undefined {
    const s = this.select(need);
    return s.ok ? s.engine : undefined;
  }

  /** Whether some engine meets the need. */
  serves(need: Need): boolean {
    return this.select(need as NeedOf<EngineKind>).ok;
  }

  /** Languages served by at least one engine of `kind`. */
  languagesFor(kind: EngineKind): string[] {
    return [...new Set(this.enginesOf(kind).flatMap((e) => e.capabilities.languages))];
  }

  /** Every directed pair reachable (directly or through one pivot), for docs and validation. */
  translationPairs(): Array<[string, string]> {
    const langs = new Set(this.enginesOf('translator').flatMap((e) => (e.capabilities.pairs ?? []).flat()));
    langs.delete('*');
    const out: Array<[string, string]> = [];
    for (const f of langs) for (const t of langs) if (f !== t && this.serves({ kind: 'translator', from: f, to: t })) out.push([f, t]);
    return out;
  }

  /**
   * The languages offered for live sessions, imports, translation and TTS (src/engines/offer.ts):
   * what `GET /api/v1/languages` lists and every language refusal names. Computed once: the
   * engines do not change while the process runs.
   */
  offeredLanguages(): LanguageOffer {
    this.offer ??= offeredLanguages(this, this.loadedKinds);
    return this.offer;
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.engines.map((e) => e.close?.()));
  }

  private preferred(need: Need, engines: AnyEngine[]): AnyEngine[] {
    // Template summaries (no custom prompt) go to a summarizer that writes them well first.
    if (need.kind === 'summarizer' && !need.instructions)
      return [...engines.filter((e) => e.capabilities.templates !== false), ...engines.filter((e) => e.capabilities.templates === false)];
    if (!sameLanguageConversion(need) || need.kind !== 'translator') return engines;
    const { from, to } = need;
    return [...engines.filter((e) => namesPairExplicitly(e, from, to)), ...engines.filter((e) => !namesPairExplicitly(e, from, to))];
  }

  /** A translator through one pivot language that two engines connect (en -> es -> fr). */
  private pivot(from: string, to: string): Translator | undefined {
    const translators = this.enginesOf('translator');
    const direct = (a: string, b: string) => translators.find((e) => servesPair(e, a, b));
    const pivots = new Set(translators.flatMap((e) => (e.capabilities.pairs ?? []).map(([, t]) => t)));
    for (const pivot of pivots) {
      if (pivot === '*' || baseLanguage(pivot) === baseLanguage(from) || baseLanguage(pivot) === baseLanguage(to)) continue;
      const a = direct(from, pivot);
      const b = a && direct(pivot, to);
      if (a && b) return pivotTranslator(a, b, pivot);
    }
    return undefined;
  }
}

/** Stable sort by tier order (tiers left out keep the default order after those named). */
function byPreference<T extends { tier: EngineTier }>(items: T[], tierOrder: readonly EngineTier[] = DEFAULT_TIER_ORDER): T[] {
  const order = [...tierOrder, ...DEFAULT_TIER_ORDER.filter((t) => !tierOrder.includes(t))];
  return items
    .map((item, i) => ({ item, i }))
    .sort((a, b) => order.indexOf(a.item.tier) - order.indexOf(b.item.tier) || a.i - b.i)
    .map(({ item }) => item);
}

function refuse(need: Need, requirements: Requirement[], candidates: AnyEngine[]): Refusal {
  const engines = candidates.map((e) => ({ id: e.id, missing: requirements.filter((r) => !r.met(e)).map((r) => r.name) }));
  // The closest engine (fewest unmet requirements, then preference) says what is missing.
  const closest = [...engines].sort((a, b) => a.missing.length - b.missing.length)[0];
  return {
    kind: need.kind,
    need,
    missing: closest ? closest.missing : ['engine'],
    message: refusalMessage(need.kind, requirements, candidates.length > 0),
    engines,
  };
}

/** The kinds to load: those asked for plus every kind their factories build on. */
function withDependencies(kinds: ReadonlySet<EngineKind>, catalog: readonly EngineFactory[]): Set<EngineKind> {
  const out = new Set(kinds);
  for (let grew = true; grew; ) {
    grew = false;
    for (const f of catalog) {
      if (!out.has(f.kind)) continue;
      for (const k of f.uses ?? []) if (!out.has(k)) grew = out.add(k) !== undefined;
    }
  }
  return out;
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
