/**
 * Builds the engine registry from configuration, the way the service and the engines CLI
 * both do it, and logs one line per engine: what serves which languages, or why not.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { CATALOG } from './catalog.js';
import { EngineRegistry } from './registry.js';

export async function createEngines(config: Config, logger: Logger): Promise<EngineRegistry> {
  const modelsDir = config.engines.modelsDir ?? join(config.platform.dataDir, 'models');
  const registry = await EngineRegistry.create({ config, modelsDir, logger }, CATALOG);
  for (const s of registry.status) {
    if (s.available)
      logger.info({ engine: s.id, kind: s.kind, tier: s.tier, languages: s.languages, pairs: s.pairs?.length }, 'engine ready');
    else logger.info({ engine: s.id, kind: s.kind, tier: s.tier, reason: s.reason }, 'engine unavailable');
  }
  return registry;
}
