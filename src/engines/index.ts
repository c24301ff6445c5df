/**
 * Builds the engine registry from configuration, the way the service and the engines CLI
 * both do it. Each role loads the engine kinds its routes and jobs use (`ROLE_ENGINE_KINDS`),
 * logs one line per engine (what it serves, or why it is unavailable); the service adds one
 * line per role naming the kinds nothing serves (`logRoleEngines`).
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Role } from '../platform/config/platform-settings.js';
import { CATALOG } from './catalog.js';
import { ENGINE_KINDS } from './needs.js';
import { WHISPER_ID } from './neural/whisper.js';
import { EngineRegistry, type EngineStatus } from './registry.js';
import type { EngineConfig } from './settings.js';
import type { EngineKind } from './types.js';

/**
 * The kinds each role uses. api: TTS voices and samples, summaries and retranslation
 * streams, language identification. realtime: live recognition, VAD, speakers, live
 * translation and TTS, and the translations and summary a recording gets when it stops.
 * worker: imports and reprocessing (file recognition, diarization) and everything else.
 */
export const ROLE_ENGINE_KINDS: Record<Role, readonly EngineKind[]> = {
  api: ['tts', 'summarizer', 'translator', 'llm', 'language-id'],
  realtime: ['streaming-stt', 'spoken-language-id', 'vad', 'diarizer', 'translator', 'tts', 'summarizer'],
  worker: ENGINE_KINDS,
};

export function kindsForRoles(roles: readonly Role[]): Set<EngineKind> {
  return new Set(roles.flatMap((r) => ROLE_ENGINE_KINDS[r]));
}

/** Loads the engines of `kinds` (and what they depend on): by default, those the process's roles use. */
export async function createEngines(
  config: EngineConfig,
  logger: Logger,
  kinds: ReadonlySet<EngineKind> = kindsForRoles(config.platform.roles),
): Promise<EngineRegistry> {
  const modelsDir = config.engines.modelsDir ?? join(config.platform.dataDir, 'models');
  const registry = await EngineRegistry.create({ config, modelsDir, logger }, CATALOG, kinds);
  // One line per engine at debug (LOG_LEVEL=debug, or `npm run -s engines`); one summary at info.
  for (const s of registry.status) {
    if (s.available)
      logger.debug({ engine: s.id, kind: s.kind, tier: s.tier, languages: s.languages, pairs: s.pairs?.length }, 'engine ready');
    else logger.debug({ engine: s.id, kind: s.kind, tier: s.tier, reason: s.reason }, 'engine unavailable');
  }
  const ready = registry.status.filter((s) => s.available).map((s) => s.id);
  const unavailable = registry.status.filter((s) => !s.available).map((s) => s.id);
  logger.info(
    { ready: [...new Set(ready)], unavailable: [...new Set(unavailable)] },
    `engines: ${new Set(ready).size} ready, ${new Set(unavailable).size} not loaded (why: npm run -s engines, or LOG_LEVEL=debug)`,
  );
  logSpeechRecognition(config, registry, logger);
  logSummaries(registry, logger);
  return registry;
}

/**
 * One start-up line (info) saying which engines write custom-prompt and template summaries, or
 * (warn) why custom prompts are refused and how to get a language model.
 */
function logSummaries(registry: EngineRegistry, logger: Logger): void {
  if (!registry.loadedKinds.has('summarizer')) return;
  const custom = registry.find({ kind: 'summarizer', language: 'en', instructions: true });
  const templates = registry.find({ kind: 'summarizer', language: 'en' });
  const llm = registry.enginesOf('llm')[0];
  if (custom) {
    logger.info(
      { custom: custom.id, llm: llm?.id ?? null, templates: templates?.id ?? null },
      `summaries: custom prompts by ${llm?.id ?? custom.id} (${custom.capabilities.languages.join(', ')}), templates by ${templates?.id ?? 'none'}`,
    );
    return;
  }
  const why = registry.status
    .filter((s) => s.kind === 'llm' && !s.available)
    .map((s) => `${s.id}: ${s.reason}`)
    .join('; ');
  logger.warn(
    { templates: templates?.id ?? null, reason: why },
    `summaries: custom prompts are refused (no language model: ${why}); npm run setup installs the local one (PARLEY_LLAMA)`,
  );
}

/**
 * One start-up line (info) saying which recognizer serves speech and, when Whisper does not,
 * why and how to get it; PARLEY_WHISPER=on turns its absence into a start-up failure.
 */
function logSpeechRecognition(config: EngineConfig, registry: EngineRegistry, logger: Logger): void {
  const whisper = registry.status.find((s) => s.id === WHISPER_ID);
  if (!whisper) return; // this role loads no file recognizer
  if (whisper.available) {
    logger.info(
      { engine: WHISPER_ID, languages: whisper.languages.length },
      `speech recognition: Whisper (${whisper.languages.length} languages)`,
    );
    return;
  }
  if (config.engines.whisper === 'on') throw new Error(`PARLEY_WHISPER=on but Whisper cannot run: ${whisper.reason}`);
  if (config.engines.whisper === 'off') return;
  const other = registry.enginesOf('file-stt')[0];
  logger.warn(
    { engine: other?.id ?? null, reason: whisper.reason },
    `speech recognition: ${other ? `${other.id} (${other.capabilities.languages.join(', ')})` : 'none'}; Whisper is not used: ${whisper.reason}`,
  );
}

/**
 * At start-up, at debug level: one line per role naming the kinds it uses that no engine here
 * serves (the built-in tier leaves some kinds to optional tiers on purpose, so this is detail,
 * not a warning; `npm run -s engines` prints the same table).
 */
export function logRoleEngines(registry: EngineRegistry, roles: readonly Role[], logger: Logger): void {
  for (const role of roles) {
    const line = roleEngineLine(role, registry.status);
    logger.debug({ role, missing: line.missing }, line.message);
  }
}

/** "role api: tts, summarizer, translator ready; missing llm (remote/openai-chat: ...; neural/llama-cpp: ...)". */
export function roleEngineLine(role: Role, status: readonly EngineStatus[]): { message: string; missing: EngineKind[] } {
  const kinds = ROLE_ENGINE_KINDS[role];
  const missing = kinds.filter((k) => !status.some((s) => s.kind === k && s.available));
  const ready = kinds.filter((k) => !missing.includes(k));
  const why = (k: EngineKind) => {
    const reasons = status.filter((s) => s.kind === k).map((s) => `${s.id}: ${s.reason}`);
    return `${k} (${reasons.length ? reasons.join('; ') : 'no engine of this kind in the catalogue'})`;
  };
  const message = missing.length
    ? `role ${role}: engines missing for ${missing.map(why).join(', ')}${ready.length ? `; ready: ${ready.join(', ')}` : ''}`
    : `role ${role}: engines ready for ${ready.join(', ')}`;
  return { message, missing };
}
