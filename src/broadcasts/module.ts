/**
 * Builds the broadcasts feature from what it needs (no app-wide dependency object): the
 * store, the host's service, the viewers' service with its abuse guard, and their routes.
 */
import type { Logger } from 'pino';
import type { EventBus } from '../bus/types.js';
import type { ActivePlan } from '../plans/service.js';
import type { Authenticator } from '../platform/auth/types.js';
import type { HttpApp } from '../platform/http/types.js';
import type { RateLimiter } from '../platform/rate-limit.js';
import type { Database } from '../store/database.js';
import { ViewerGuard } from './abuse.js';
import { registerBroadcastRoutes } from './routes.js';
import { BroadcastService } from './service.js';
import { BroadcastStore } from './store.js';
import { ViewerService, type VoiceSummary } from './viewer-service.js';

export interface BroadcastsModule {
  store: BroadcastStore;
  broadcasts: BroadcastService;
  viewers: ViewerService;
}

export interface BroadcastsModuleDeps {
  database: Database;
  bus: EventBus;
  rateLimiter: RateLimiter;
  activePlan(accountId: string): Promise<ActivePlan>;
  templateExists(slug: string): boolean;
  /** Voices of the synthesizer that serves `language` here, or null when none does. */
  voices(language: string): VoiceSummary[] | null;
  viewerLimit: number;
  now: () => Date;
  logger: Logger;
}

export function createBroadcastsModule(d: BroadcastsModuleDeps): BroadcastsModule {
  const store = new BroadcastStore(d.database);
  const broadcasts = new BroadcastService({
    store,
    bus: d.bus,
    activePlan: d.activePlan,
    rules: {
      viewerLimit: d.viewerLimit,
      templateExists: d.templateExists,
      voices: (language) => d.voices(language)?.map((v) => v.voice_name) ?? null,
    },
    now: d.now,
    logger: d.logger,
  });
  const viewers = new ViewerService({
    store,
    guard: new ViewerGuard(d.rateLimiter),
    voices: (language) => d.voices(language) ?? [],
    ttsToViewers: false,
    now: d.now,
  });
  return { store, broadcasts, viewers };
}

export function registerBroadcasts(app: HttpApp, m: BroadcastsModule, auth: Authenticator): void {
  registerBroadcastRoutes(app, { auth, broadcasts: m.broadcasts, viewers: m.viewers });
}
