/**
 * Floating subtitles, built once in the composition root: the access service (tokens,
 * shares) over its store, the audience counter (over the presence port: Redis when the
 * deployment has one, so the limit and each source's share of it hold across realtime
 * processes), and the two route sets: REST access on the api role, the subtitle SSE on the
 * realtime role.
 */

import { sessionTopic } from '../bus/topics.js';
import type { EventBus } from '../bus/types.js';
import type { ActivePlan } from '../plans/service.js';
import type { Authenticator } from '../platform/auth/types.js';
import type { SourceShareRule } from '../platform/http/source-share.js';
import type { HttpApp } from '../platform/http/types.js';
import type { RateLimiter } from '../platform/rate-limit.js';
import type { Presence } from '../presence/types.js';
import type { Database } from '../store/database.js';
import { isEnd } from '../stream/events.js';
import type { SessionStreams } from '../stream/session-streams.js';
import type { TaskRecord } from '../tasks/store.js';
import { type AudienceCounter, presenceAudience } from './audience.js';
import { registerSubtitleFeedRoute } from './feed-route.js';
import { registerSubtitleRoutes } from './routes.js';
import { SubtitleService } from './service.js';
import { SubtitleStore } from './store.js';

export interface SubtitlesModule {
  service: SubtitleService;
  audience: AudienceCounter;
  registerApi(app: HttpApp, auth: Authenticator): void;
  registerRealtime(app: HttpApp): void;
}

export function createSubtitlesModule(deps: {
  database: Database;
  bus: EventBus;
  /** The live sessions' event streams (src/stream). */
  streams: SessionStreams;
  rateLimiter: RateLimiter;
  /** Leased counts shared by every process (src/presence): the audience seats. */
  presence: Presence;
  maxViewers: number;
  /** What one source (address, feed token) may hold of a recording's audience seats. */
  sourceSeats: SourceShareRule;
  recheckSeconds: number;
  /** Public exchanges per recording per minute, all sources together (each source: 30 of its own). */
  exchangesPerRecording: number;
  getTask(taskId: string): Promise<TaskRecord | null>;
  activePlan(accountId: string): Promise<ActivePlan>;
  now: () => Date;
}): SubtitlesModule {
  const audience: AudienceCounter = presenceAudience(deps.presence);
  const service = new SubtitleService({
    store: new SubtitleStore(deps.database),
    getTask: deps.getTask,
    activePlan: deps.activePlan,
    // A live session has streamed once its stream's retained log holds an event, and until that log ends.
    isStreaming: async (taskId) => {
      const log = await deps.bus.retained(sessionTopic(taskId));
      return log.length > 0 && !log.some(isEnd);
    },
    now: deps.now,
  });
  return {
    service,
    audience,
    registerApi(app, auth) {
      registerSubtitleRoutes(app, {
        auth,
        subtitles: service,
        rateLimiter: deps.rateLimiter,
        exchangesPerRecording: deps.exchangesPerRecording,
      });
    },
    registerRealtime(app) {
      registerSubtitleFeedRoute(app, {
        subtitles: service,
        bus: deps.bus,
        streams: deps.streams,
        audience,
        maxViewers: deps.maxViewers,
        sourceSeats: deps.sourceSeats,
        recheckMs: deps.recheckSeconds * 1000,
        languagesOf: async (taskId) => {
          const task = await deps.getTask(taskId);
          return {
            transcription_languages: task?.transcriptionLanguages ?? [],
            translation_languages: task?.translationLanguages ?? [],
          };
        },
      });
    },
  };
}
