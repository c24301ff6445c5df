/**
 * Builds the broadcasts feature from what it needs (no app-wide dependency object): the
 * store, the host's service, the viewers' service with its abuse guard, and their routes.
 */
import type { Logger } from 'pino';
import type { EventBus } from '../bus/types.js';
import type { Summarizer, Synthesizer } from '../engines/types.js';
import type { ActivePlan } from '../plans/service.js';
import type { Authenticator, Principal } from '../platform/auth/types.js';
import type { SourceShareRule } from '../platform/http/source-share.js';
import { SSE_HEARTBEAT_MS } from '../platform/http/sse.js';
import type { HttpApp } from '../platform/http/types.js';
import type { RateLimiter } from '../platform/rate-limit.js';
import { exponentialBackoff } from '../platform/retry.js';
import type { Presence } from '../presence/types.js';
import type { Database } from '../store/database.js';
import { postWebhook } from '../webhooks/sender.js';
import { type ChannelLimits, ViewerGuard } from './abuse.js';
import type { CatchUpSettings } from './catch-up/keeper.js';
import { CatchUpReader } from './catch-up/reader.js';
import { CatchUpStore } from './catch-up/store.js';
import { BROADCAST_REVOKED_TOPIC, BROADCAST_SINKS_TOPIC, type BroadcastRevokedEvent } from './events.js';
import { ViewerFanout } from './fanout/hub.js';
import type { BroadcastHostDeps } from './host-deps.js';
import { startHostSweep } from './host-lease.js';
import { type Prepared, prepareBroadcast } from './host-prepare.js';
import { registerBroadcastRoutes } from './routes.js';
import type { RuleContext } from './rules.js';
import { presenceSeats, type ViewerSeats } from './seats.js';
import { BroadcastService } from './service.js';
import { registerSinkRoutes } from './sinks/routes.js';
import { SinkService } from './sinks/service.js';
import { CaptionSinkStore } from './sinks/store.js';
import { BroadcastStore } from './store.js';
import { ViewerCounter } from './viewer-counter.js';
import { isInterimCaption, isWithdrawnCaption, VIEWER_REPLAY_RETAIN, type ViewerEvent, viewerTopic } from './viewer-events.js';
import { ViewerService, type VoiceSummary } from './viewer-service.js';
import { registerViewerStream, SEAT_LEASE_MS } from './viewer-stream.js';

export interface BroadcastsModule {
  store: BroadcastStore;
  broadcasts: BroadcastService;
  viewers: ViewerService;
  seats: ViewerSeats;
  guard: ViewerGuard;
  sourceSeats: SourceShareRule;
  bus: EventBus;
  /** Caption sinks (YouTube Live, Zoom): the host's REST side. */
  sinks: SinkService;
  /** Catch-up summaries for late joiners: stored by the hosting node, read by every viewer stream. */
  catchUps: CatchUpStore;
  catchUpReader: CatchUpReader;
  /** What a host's broadcast session needs. */
  host: BroadcastHostDeps;
  /**
   * Broadcasts as audiences of the host's live session: src/app.ts hands this to the realtime
   * role as its `audiences` port (a `start` of type broadcast; the host session it gives
   * subscribes to the session stream).
   */
  hosting: { prepare(principal: Principal, data: Record<string, unknown>): Promise<Prepared> };
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
  synthesizer(language: string, voice?: string | null): Synthesizer | null;
  /** The summarizer the engine layer picks for built-in summaries in `language` (catch-up summaries), or null. */
  summarizer(language: string): Summarizer | null;
  /** Catch-up summaries: how often and how much (intervalMs 0: none). */
  catchUp: CatchUpSettings;
  /** Live recognition here (creation refuses an unserved transcription language); null when this process has none. */
  speech?: RuleContext['speech'];
  viewerLimit: number;
  hostWaitMs: number;
  /** How long a hosting process holds a broadcast without renewing it (host-lease.ts). */
  hostLeaseMs: number;
  /** Caption sinks: the webhook URL policy for their targets, and how their POSTs are retried. */
  sinkDelivery: { allowPrivate: boolean; attempts: number; retryBaseMs: number; timeoutMs: number };
  /** Per-source limits: the channel ceilings (abuse.ts) and each source's share of seats (viewer-stream.ts). */
  sourceLimits: ChannelLimits & { seats: SourceShareRule };
  /** Leased counts shared by every process (src/presence): the viewer seats and their queue. */
  presence: Presence;
  now: () => Date;
  logger: Logger;
}

/** How often the sentence being spoken is translated for viewers (interim translations; one run for every viewer). */
const INTERIM_TRANSLATION_MS = 700;

/** Interim captions are superseded, audio and sentence errors are for who watches now: none is kept for late joiners. */
function notReplayed(event: ViewerEvent): boolean {
  return isInterimCaption(event) || isWithdrawnCaption(event) || event.event === 'tts_ready' || event.event === 'error';
}

export function createBroadcastsModule(d: BroadcastsModuleDeps): BroadcastsModule {
  const store = new BroadcastStore(d.database);
  const catchUps = new CatchUpStore(d.database);
  const seats: ViewerSeats = presenceSeats(d.presence);
  const broadcasts = new BroadcastService({
    counts: (id) => seats.counts(id),
    store,
    bus: d.bus,
    activePlan: d.activePlan,
    catchUps,
    rules: {
      viewerLimit: d.viewerLimit,
      templateExists: d.templateExists,
      voices: (language) => d.voices(language)?.map((v) => v.voice_name) ?? null,
      speech: d.speech,
    },
    now: d.now,
    logger: d.logger,
  });
  const guard = new ViewerGuard(d.rateLimiter, d.sourceLimits);
  const viewers = new ViewerService({
    store,
    guard,
    voices: (language) => d.voices(language) ?? [],
    now: d.now,
  });
  const sinkStore = new CaptionSinkStore(d.database);
  const sinks = new SinkService({
    broadcasts,
    store: sinkStore,
    bus: d.bus,
    allowPrivate: d.sinkDelivery.allowPrivate,
    now: d.now,
    logger: d.logger,
  });
  const host: BroadcastHostDeps = {
    store,
    seats,
    // Everything but interim captions and audio is retained: late joiners replay the latest finals (viewer-stream.ts).
    publish: (id, event) => d.bus.publish(viewerTopic(id), event, { retain: notReplayed(event) ? undefined : VIEWER_REPLAY_RETAIN }),
    translate: d.translate,
    synthesizer: d.synthesizer,
    interimTranslationMs: INTERIM_TRANSLATION_MS,
    // One keeper a hosting session (catch-up/keeper.ts); viewers only read what it stores.
    catchUp:
      d.catchUp.intervalMs > 0
        ? {
            store: catchUps,
            summarizer: d.summarizer,
            translate: d.translate,
            settings: d.catchUp,
            now: d.now,
            logger: d.logger.child({ feature: 'catch-up' }),
          }
        : undefined,
    activePlan: d.activePlan,
    async onRevoked(id, handler) {
      return d.bus.subscribe(BROADCAST_REVOKED_TOPIC, (m) => {
        if ((m as BroadcastRevokedEvent).broadcast_id === id) handler();
      });
    },
    rules: { voices: (language) => d.voices(language)?.map((v) => v.voice_name) ?? null },
    sinks: {
      store: sinkStore,
      async onChanged(id, handler) {
        return d.bus.subscribe(BROADCAST_SINKS_TOPIC, (m) => {
          if (m.broadcast_id === id) handler();
        });
      },
      runner: {
        // The webhook sender: no redirects, a time limit, the connection pinned to the address the SSRF guard checked.
        post: (url, body) =>
          postWebhook({
            url,
            body,
            headers: { 'Content-Type': 'text/plain; charset=utf-8', 'User-Agent': 'Parley-Captions/1' },
            timeoutMs: d.sinkDelivery.timeoutMs,
            allowPrivate: d.sinkDelivery.allowPrivate,
          }),
        report: (id, r) => sinkStore.report(id, r),
        attempts: d.sinkDelivery.attempts,
        backoff: exponentialBackoff({ baseMs: d.sinkDelivery.retryBaseMs, maxMs: 30_000 }),
        now: d.now,
        logger: d.logger,
      },
      logger: d.logger,
    },
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
    sourceSeats: d.sourceLimits.seats,
    bus: d.bus,
    sinks,
    catchUps,
    catchUpReader: new CatchUpReader(catchUps),
    host,
    hosting: { prepare: (principal, data) => prepareBroadcast(host, principal, data) },
    // The presence belongs to the composition root, which closes it.
    close: async () => {
      stopSweep();
    },
  };
}

export function registerBroadcasts(app: HttpApp, m: BroadcastsModule, auth: Authenticator): void {
  registerBroadcastRoutes(app, { auth, broadcasts: m.broadcasts, viewers: m.viewers });
  registerSinkRoutes(app, { auth, sinks: m.sinks });
  registerViewerStream(app, {
    store: m.store,
    viewers: m.viewers,
    guard: m.guard,
    seats: m.seats,
    bus: m.bus,
    sourceSeats: m.sourceSeats,
    catchUp: m.catchUpReader,
    fanout: new ViewerFanout({
      bus: m.bus,
      seats: m.seats,
      heartbeatMs: SSE_HEARTBEAT_MS,
      leaseMs: SEAT_LEASE_MS,
      read: (id) => m.store.get(id),
      admits: (b, viewerToken) => m.viewers.admits(b, viewerToken),
      logger: app.log,
    }),
    counter: new ViewerCounter(m.store),
  });
}
