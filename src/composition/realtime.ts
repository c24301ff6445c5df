/**
 * The realtime role's routes: the glossary check, the live WebSocket with its ports
 * (src/realtime/ports.ts) and the audiences port (broadcasts), and the subtitle viewers' stream.
 */
import { join } from 'node:path';
import type { Config } from '../config.js';
import { CorrectionStore } from '../corrections/store.js';
import { glossaryLimits } from '../glossary/limits.js';
import { registerGlossaryRoutes } from '../glossary/routes.js';
import type { Authenticator } from '../platform/auth/types.js';
import type { HttpApp } from '../platform/http/types.js';
import { createRealtimePorts, type HostedAudiences, type RealtimeWiring } from '../realtime/ports.js';
import { registerRealtime } from '../realtime/server.js';
import type { SubtitlesModule } from '../subtitles/module.js';

export type RealtimeBackends = Omit<RealtimeWiring, 'settings' | 'glossaryLimits' | 'templates' | 'corrections'> & {
  summaryTemplates: RealtimeWiring['templates'];
};

export function registerRealtimeRole(
  http: HttpApp,
  config: Config,
  auth: Authenticator,
  backends: RealtimeBackends,
  audiences: HostedAudiences,
  subtitles: SubtitlesModule,
): void {
  const { logger, now, database, summaryTemplates, ...rest } = backends;
  const rt = config.realtime;
  registerGlossaryRoutes(http, { auth, limits: glossaryLimits(config) });
  registerRealtime(http, {
    ports: {
      ...createRealtimePorts({
        ...rest,
        logger,
        now,
        database,
        settings: { ...rt, tempDir: join(config.platform.dataDir, 'tmp', 'realtime') },
        templates: summaryTemplates,
        glossaryLimits: glossaryLimits(config),
        corrections: new CorrectionStore(database, now),
      }),
      // Broadcasts subscribe to the host's session stream through the audiences port (src/realtime never imports them).
      audiences,
    },
    logger,
    now,
    limits: {
      maxFrameBytes: rt.maxFrameBytes,
      preStartMs: rt.preStartSeconds * 1000,
      pingIntervalMs: rt.pingSeconds * 1000,
      silenceWarningMs: rt.silenceWarningSeconds * 1000,
      disconnectGraceMs: rt.disconnectGraceSeconds * 1000,
      drainMs: rt.drainSeconds * 1000,
      handoverTimeoutMs: rt.handoverTimeoutSeconds * 1000,
    },
    trustProxy: config.platform.trustProxy,
  });
  subtitles.registerRealtime(http);
}
