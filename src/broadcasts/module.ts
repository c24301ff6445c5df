/**
 * Builds the broadcasts feature from what it needs (no app-wide dependency object): the
 * store, the host's service, the viewers' service with its abuse guard, and their routes.
 */
import type { Logger } from 'pino';
import type { EventBus } from '../bus/types.js';
import type { Synthesizer } from '../engines/types.js';
import type { ActivePlan } from '../plans/service.js';
import type { Authenticator } from '../platform/auth/types.js';
import type { HttpApp } from '../platform/http/types.js';
import type { RateLimiter } from '../platform/rate-limit.js';
import type { Database } from '../store/database.js';
import { ViewerGuard } from './abuse.js';
import { BROADCAST_REVOKED_TOPIC, type BroadcastRevokedEvent } from './events.js';
import { startHostSweep } from './host-lease.js';
import type { BroadcastHostDeps } from './host-session.js';
import { registerBroadcastRoutes } from './routes.js';
import { InMemorySeats, RedisSeats, type ViewerSeats } from './seats.js';
import { BroadcastService } from './service.js';
import { BroadcastStore } from './store.js';
import { isInterimCaption, VIEWER_REPLAY_RETAIN, type ViewerEvent, viewerTopic } from './viewer-events.js';
import { ViewerService, type VoiceSummary } from './viewer-service.js';
import { ViewerSpeech } from './viewer-speech.js';
import { registerViewerStream } from './viewer-stream.js';

export interface BroadcastsModule {
  store: BroadcastStore;
  broadcasts: BroadcastService;
  viewers: ViewerService;
  seats: ViewerSeats;
  guard: ViewerGuard;
  bus: EventBus;
  /** What a host's broadcast session needs (the realtime role's connections). */
  host: BroadcastHostDeps;
  close(): Promise<void>;
}

export interface BroadcastsModuleDeps {
  database: Database;
  bus: EventBus;
  rateLimiter: RateLimiter;
  activePlan(accountId: string): Promise<ActivePlan>;
  templateExists(slug: string): boolean;
  /** Voices of the synthesizer that serves `language` here, or null when none does. */
  voices(language: string): VoiceSummary[] | null;
  /** Host text in another language (announcements, standby messages); null when no engine serves it. */
  translate(text: string, from: string, to: string): Promise<string | null>;
  /** The synthesizer serving `language` here (viewers' tts_ready audio, made on the host's node), or null. */
  synthesizer(language: string): Synthesizer | null;
  viewerLimit: number;
  hostWaitMs: number;
  /** How long a hosting process holds a broadcast without renewing it (host-lease.ts). */
  hostLeaseMs: number;
  /** Seats are counted in Redis when the deployment has it (every process counts together). */
  redisUrl?: string;
  now: () => Date;
  logger: Logger;
}

/** How often the sentence being spoken is translated for viewers (interim translations; one run for every viewer). */
const INTERIM_TRANSLATION_MS = 700;

/** Interim captions are superseded and audio is for who listens now: neither is kept for late joiners. */
function notReplayed(event: ViewerEvent): boolean {
  return isInterimCaption(event) || event.event === 'tts_ready';
}

export function createBroadcastsModule(d: BroadcastsModuleDeps): BroadcastsModule {
  const store = new BroadcastStore(d.database);
  const seats: ViewerSeats = d.redisUrl ? new RedisSeats(d.redisUrl) : new InMemorySeats();
  const broadcasts = new BroadcastService({
    counts: (id) => seats.counts(id),
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
  const guard = new ViewerGuard(d.rateLimiter);
  const viewers = new ViewerService({
    store,
    guard,
    voices: (language) => d.voices(language) ?? [],
    ttsToViewers: true,
    now: d.now,
  });
  const host: BroadcastHostDeps = {
    store,
    seats,
    // Everything but interim captions and audio is retained: late joiners replay the latest finals (viewer-stream.ts).
    publish: (id, event) => d.bus.publish(viewerTopic(id), event, { retain: notReplayed(event) ? undefined : VIEWER_REPLAY_RETAIN }),
    translate: d.translate,
    synthesizer: d.synthesizer,
    interimTranslationMs: INTERIM_TRANSLATION_MS,
    activePlan: d.activePlan,
    async onRevoked(id, handler) {
      return d.bus.subscribe(BROADCAST_REVOKED_TOPIC, (m) => {
        if ((m as BroadcastRevokedEvent).broadcast_id === id) handler();
      });
    },
    rules: { voices: (language) => d.voices(language)?.map((v) => v.voice_name) ?? null },
    hostWaitMs: d.hostWaitMs,
    hostLeaseMs: d.hostLeaseMs,
    now: d.now,
    logger: d.logger,
  };
  // Every process sweeps for hosts whose process died (conditional updates: one acts per broadcast).
  const stopSweep = startHostSweep({
    store,
    publish: host.publish,
    leaseMs: d.hostLeaseMs,
    hostWaitMs: d.hostWaitMs,
    now: d.now,
    logger: d.logger,
  });
  return {
    store,
    broadcasts,
    viewers,
    seats,
    guard,
    bus: d.bus,
    host,
    close: async () => {
      stopSweep();
      await seats.close();
    },
  };
}

export function registerBroadcasts(app: HttpApp, m: BroadcastsModule, auth: Authenticator): void {
  registerBroadcastRoutes(app, { auth, broadcasts: m.broadcasts, viewers: m.viewers });
  registerViewerStream(app, {
    store: m.store,
    viewers: m.viewers,
    guard: m.guard,
    seats: m.seats,
    bus: m.bus,
    ttsLanguages: (b) => ViewerSpeech.languages(b.translationLanguages, m.host.synthesizer),
  });
}
