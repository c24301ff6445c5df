/**
 * GET /broadcast/{token}/text: a viewer's caption stream (spec "Broadcast viewer SSE", "SSE:
 * broadcast viewer"), on any api node. The host's node publishes what viewers see on the
 * broadcast's viewer topic (host-session.ts); here every viewer subscribes to it, after the
 * abuse limits and a seat (seats.ts: max_viewers across nodes, then a first-come queue).
 *
 * - Connection errors: 404 broadcast_session_not_found for an unknown token (`details.reason`
 *   `unknown_token`) and for a broadcast no host has started yet (`not_started`, with
 *   Retry-After: a viewer waits and asks again), 410 broadcast_session_ended once it ended.
 *   A host's start (standby or live) puts it on air; frozen broadcasts stay on air.
 * - `connected` first (available_langs, tts_languages, phase, recognition_mode), then the
 *   catch-up summary of what was said (catch-up/reader.ts; live phase, once admitted), then the
 *   latest few final sentences from the topic's retained log (late joiners; no interims),
 *   then live events. In standby the viewer gets `standby`, never captions.
 * - `lang` keeps one translation language (origin captions always come).
 * - Over max_viewers: `queued` {position, estimated_wait} now and as it changes, then
 *   `admitted`; captions only once admitted. A full queue (as long as max_viewers, at least
 *   100) is 503 broadcast_capacity_exceeded.
 * - One source (its address, and its viewer_access_token on password channels) holds at most
 *   its share of seats and queue places together (`sourceSeats`); a further stream of it is
 *   503 broadcast_capacity_exceeded with details.reason `source_share`, while other sources
 *   still get in.
 * - Display messages in the viewer's language (lang or Accept-Language: zh -> Traditional
 *   Chinese, else English). A heartbeat comment every 15 s renews the seat's lease.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { EventBus } from '../bus/types.js';
import { ViewerSentenceCorrected } from '../corrections/schemas.js';
import { normalizeLanguage } from '../languages.js';
import { AppError } from '../platform/errors/app-error.js';
import { errors, PUBLIC, sse } from '../platform/http/api-doc.js';
import { ErrorEvent, MessageEvent, SPEAKER_EVENTS, SpokenSentence, TranslatedMessage } from '../platform/http/event-schemas.js';
import { sourceOf } from '../platform/http/source.js';
import { type SourceShareRule, seatsPerSource } from '../platform/http/source-share.js';
import { openSse, type SseStream, sharedJson } from '../platform/http/sse.js';
import type { HttpApp } from '../platform/http/types.js';
import type { ViewerGuard } from './abuse.js';
import { type CatchUpEvent, CatchUpPayload, type CatchUpReader } from './catch-up/reader.js';
import { type DisplayKey, display, displayLanguage } from './display.js';
import type { ViewerFanout } from './fanout/hub.js';
import type { ViewerRoom } from './fanout/room.js';
import { CAPTIONS, RoomViewer, type ViewerItem } from './fanout/viewer.js';
import { documentOnly } from './schemas.js';
import type { SeatShare, ViewerSeats } from './seats.js';
import { CHANNEL_TOKEN, hashViewerToken } from './secrets.js';
import type { Broadcast, BroadcastStore } from './store.js';
import type { ViewerCounter } from './viewer-counter.js';
import { REPLAY_SENTENCES, type ViewerEvent, viewerTopic } from './viewer-events.js';
import type { ViewerService } from './viewer-service.js';

export const SEAT_LEASE_MS = 45_000;

/**
 * Viewer ids: unique across processes (seats are shared through Redis) and small: a random
 * per-process prefix and a counter, one flat string (a UUID string costs ~1 KB a viewer here).
 */
const VIEWER_ID_PREFIX = randomBytes(6).toString('base64url');
let viewerSeq = 0;
function nextViewerId(): string {
  return `${VIEWER_ID_PREFIX}.${(++viewerSeq).toString(36)}`;
}
/** Retry-After of a broadcast not on air yet: how soon a waiting viewer asks again. */
export const NOT_STARTED_RETRY_SECONDS = 10;

/**
 * 404 broadcast_session_not_found for a broadcast whose host has not started it (status
 * `pending`): the spec's connection error for a session that does not exist (yet). Unlike an
 * unknown token it is worth asking again: `details.reason` `not_started` and `Retry-After`.
 */
function notStarted(): AppError {
  return new AppError('broadcast_session_not_found', {
    message: 'This broadcast has not started yet.',
    details: { reason: 'not_started', status: 'pending' },
    headers: { 'Retry-After': String(NOT_STARTED_RETRY_SECONDS) },
  });
}
/** How often a queued viewer asks for a seat again. */
export const QUEUE_POLL_MS = 2_000;
const QUEUE_MIN = 100;

export interface ViewerStreamDeps {
  store: BroadcastStore;
  viewers: ViewerService;
  guard: ViewerGuard;
  seats: ViewerSeats;
  bus: EventBus;
  /** What one source may hold of a broadcast's seats and queue places. */
  sourceSeats: SourceShareRule;
  /** Catch-up summaries for late joiners; absent: none are sent. */
  catchUp?: CatchUpReader;
  /** This process's viewer rooms (heartbeats and seat renewals included). */
  fanout: ViewerFanout;
  /** total_viewers and peak_viewers, written coalesced. */
  counter: ViewerCounter;
}

function query(request: FastifyRequest): Record<string, unknown> {
  return (request.query ?? {}) as Record<string, unknown>;
}

function one(q: Record<string, unknown>, name: string): string | undefined {
  const v = q[name];
  if (Array.isArray(v)) return typeof v[0] === 'string' ? v[0] : undefined;
  return typeof v === 'string' ? v : undefined;
}

/** The latest REPLAY_SENTENCES finals (with their translations) of the retained log, in order. */
export function replayOf(log: ViewerEvent[]): ViewerEvent[] {
  const finals = log.filter((e) => e.event === 'origin' && e.data.is_final === true).map((e) => Number(e.data.sid));
  const keep = new Set(finals.slice(-REPLAY_SENTENCES));
  // A replayed sentence's corrections follow it (in log order), so a late joiner sees the corrected text.
  return log.filter(
    (e) =>
      (CAPTIONS.has(e.event) && e.data.is_final === true && keep.has(Number(e.data.sid))) ||
      (e.event === 'sentence_corrected' && keep.has(Number(e.data.sid))),
  );
}

const NullableString = Type.Union([Type.String(), Type.Null()]);
/** The viewer events (spec "SSE: broadcast viewer"; catch_up is Parley's); docs/broadcasts.md says when each comes. */
export const VIEWER_EVENTS = {
  connected: Type.Object({
    available_langs: Type.Array(Type.String(), { description: 'The translation languages' }),
    tts_languages: Type.Array(Type.String(), { description: 'Languages with tts_ready while live; empty otherwise' }),
    phase: Type.String({ description: 'standby or live' }),
    recognition_mode: Type.String({ description: 'single or multi_speaker' }),
    message: Type.String(),
  }),
  queued: Type.Object({ position: Type.Integer({ minimum: 1 }), estimated_wait: Type.String({ description: 'Display text' }) }),
  admitted: MessageEvent,
  catch_up: CatchUpPayload,
  origin: Type.Object({
    sid: Type.Integer(),
    text: Type.String(),
    speaker_id: Type.Optional(NullableString),
    speaker_label: NullableString,
    start_time: Type.String({ description: 'mm:ss from go-live' }),
    is_final: Type.Boolean(),
  }),
  translation: Type.Object({
    sid: Type.Integer(),
    language: Type.String(),
    text: Type.String(),
    speaker_id: NullableString,
    speaker_label: NullableString,
    is_final: Type.Boolean(),
  }),
  tts_ready: SpokenSentence,
  paused: MessageEvent,
  resumed: MessageEvent,
  ended: Type.Object({ message: Type.String(), reason: Type.Optional(Type.String({ description: 'host_gone when no host returned' })) }),
  kicked: MessageEvent,
  error: ErrorEvent,
  ...SPEAKER_EVENTS,
  sentence_corrected: ViewerSentenceCorrected,
  recording_started: MessageEvent,
  max_viewers_changed: Type.Object({ max_viewers: Type.Integer() }),
  host_disconnected: MessageEvent,
  host_reconnected: Type.Object({ resumed: Type.Boolean(), phase: Type.String(), message: Type.String() }),
  standby: TranslatedMessage,
  phase_changed: Type.Object({ phase: Type.String(), message: Type.String() }),
  announcement: TranslatedMessage,
};

export function registerViewerStream(app: HttpApp, deps: ViewerStreamDeps): void {
  app.get<{ Params: { token: string } }>(
    '/broadcast/:token/text',
    {
      config: { errorVariant: 'sse' as const },
      schema: {
        tags: ['viewers'],
        summary: 'A viewer caption stream (no API key): lang, tts, viewer_access_token (password channels).',
        description:
          'A heartbeat comment every 15 seconds. At capacity the viewer is queued (queued, then admitted) or refused with 503. Connection errors: 404 broadcast_session_not_found for an unknown token (details.reason unknown_token) or a broadcast no host has started yet (details.reason not_started, Retry-After: ask again then); 410 broadcast_session_ended once it ended.',
        security: PUBLIC,
        params: Type.Object({ token: Type.String({ description: 'The 4-character share token' }) }),
        querystring: Type.Object({
          lang: Type.Optional(Type.String({ description: 'Only this translation language' })),
          tts: Type.Optional(Type.Boolean({ default: false, description: 'Receive tts_ready audio (live phase)' })),
          viewer_access_token: Type.Optional(Type.String({ description: 'Required for password channels (from verify); query only' })),
        }),
        response: {
          200: sse('Captions of one broadcast.', VIEWER_EVENTS),
          ...errors(
            [
              'broadcast_session_not_found',
              'broadcast_session_ended',
              'broadcast_capacity_exceeded',
              'broadcast_token_revoked',
              'broadcast_password_incorrect',
              'too_many_requests',
            ],
            { variant: 'sse', input: true },
          ),
        },
      },
      // The query is read by hand (query() below); the schema documents it.
      ...documentOnly,
    },
    async (request, reply) => openViewerStream(deps, request, reply),
  );
}

async function openViewerStream(deps: ViewerStreamDeps, request: FastifyRequest<{ Params: { token: string } }>, reply: FastifyReply) {
  const q = query(request);
  const source = sourceOf(request.ip);
  await deps.guard.assertSourceAllowed(source);
  const token = request.params.token;
  // A broadcast with viewers on this process is known by its room (its row read once for all joiners): no read per viewer.
  const found = CHANNEL_TOKEN.test(token) ? ((await deps.fanout.admissionFacts(token)) ?? (await deps.store.findByToken(token))) : null;
  if (!found) {
    await deps.guard.countUnknown(source);
    throw new AppError('broadcast_session_not_found', { details: { reason: 'unknown_token' } });
  }
  const b: Broadcast = found;
  if (b.status === 'revoked') throw new AppError('broadcast_token_revoked');
  if (b.status === 'ended') throw new AppError('broadcast_session_ended');
  // Not on air yet: no host has started it, so there is no broadcast session to read.
  if (b.status === 'pending') throw notStarted();
  if (!(await deps.viewers.admits(b, one(q, 'viewer_access_token')))) {
    throw new AppError('broadcast_password_incorrect', {
      message: 'This broadcast needs a valid viewer_access_token (from verify) in the query.',
      details: { field: 'viewer_access_token' },
    });
  }
  const rawLang = one(q, 'lang');
  const lang = rawLang ? normalizeLanguage(rawLang) : null;
  if (rawLang && (!lang || !b.translationLanguages.includes(lang))) {
    throw new AppError('validation_failed', { details: { field: 'lang', valid_values: b.translationLanguages } });
  }
  const ttsParam = one(q, 'tts');
  if (ttsParam !== undefined && ttsParam !== 'true' && ttsParam !== 'false') {
    throw new AppError('validation_failed', { details: { field: 'tts', valid_values: ['true', 'false'] } });
  }
  const listens = ttsParam === 'true';
  const hint = lang ?? (typeof request.headers['accept-language'] === 'string' ? request.headers['accept-language'] : null);
  const msg = (key: DisplayKey, values?: Record<string, string | number>) => display(key, hint, values);

  const viewerToken = one(q, 'viewer_access_token');
  // Sent before the captions of a live broadcast (catch-up/reader.ts); a reconnect that has it already (Last-Event-ID) is not sent it again.
  const lastEventId = typeof request.headers['last-event-id'] === 'string' ? request.headers['last-event-id'] : undefined;
  const catchUpOf = async (now: Broadcast) =>
    now.phase === 'live' || now.phase === 'paused' ? ((await deps.catchUp?.forViewer(now, lang, lastEventId)) ?? null) : null;
  const viewerId = nextViewerId();
  // The source's share: its address, and on password channels its viewer token (stored hashed, as in the database).
  const share = {
    keys: [`src:${source}`, ...(b.accessType === 'password' && viewerToken ? [`tok:${hashViewerToken(viewerToken)}`] : [])],
    limit: seatsPerSource(deps.sourceSeats, b.maxViewers),
  };
  const first = await deps.seats.claim(b.id, viewerId, b.maxViewers, SEAT_LEASE_MS, share);
  if ('overShare' in first) {
    throw new AppError('broadcast_capacity_exceeded', {
      message: "This address (or viewer access token) already holds its share of this broadcast's seats and waiting line.",
      details: { max_viewers: b.maxViewers, reason: 'source_share', per_source: share.limit },
    });
  }
  if (!first.admitted && first.position > Math.max(QUEUE_MIN, b.maxViewers)) {
    await deps.seats.leave(b.id, viewerId, share.keys);
    throw new AppError('broadcast_capacity_exceeded', { details: { max_viewers: b.maxViewers, queue_position: first.position } });
  }
  if (first.admitted) await deps.counter.count(b.id, first.viewers);
  const waitText = (position: number) => msg('wait_minutes', { n: Math.max(1, Math.ceil(position / Math.max(1, b.maxViewers / 10))) });

  // The viewer joins this process's room of the broadcast (fanout/): one bus subscription for all its viewers.
  const viewer = new RoomViewer(viewerId, lang, listens, displayLanguage(hint), share.keys, viewerToken, first.admitted);
  const room = await deps.fanout.join(b, viewer);
  let initial: ViewerItem[];
  try {
    initial = await initialItems(deps, b, room, viewer, catchUpOf);
  } catch (err) {
    deps.fanout.leave(room, viewer);
    await deps.seats.leave(b.id, viewerId, share.keys);
    throw err;
  }
  // Headers, connected and the initial items leave in one write (corked until they are all queued).
  reply.raw.cork();
  const sse = openSse(request, reply, { headersWithFirstFrame: true });
  try {
    const phase = b.phase === 'live' || b.phase === 'paused' ? 'live' : 'standby';
    sse.send('connected', {
      available_langs: b.translationLanguages,
      // As the hosting node published them (it synthesizes), whatever this node's engines.
      tts_languages: phase === 'live' ? (b.ttsLanguages ?? []) : [],
      phase,
      recognition_mode: b.speakerDiarization ? 'multi_speaker' : 'single',
      message: msg('connected'),
    });
    if (!first.admitted) sse.send('queued', { position: first.position, estimated_wait: waitText(first.position) });
    room.open(viewer, sse, initial);
  } finally {
    reply.raw.uncork();
  }
  // Closed: its room place and seat go (and a queued viewer stops asking). Nothing of this request is kept.
  deps.fanout.follow(
    room,
    viewer,
    sse,
    first.admitted
      ? null
      : watchQueue(deps, { b, room, viewer, sse, share, position: first.position, msg, waitText, catchUpOf, log: request.log }),
  );
}

/**
 * A queued viewer asks for a seat again every few seconds (`queued` as its place changes);
 * admitted, it gets `admitted`, its catch-up summary and captions from then on. Returns the stop.
 */
function watchQueue(
  deps: ViewerStreamDeps,
  w: {
    b: Broadcast;
    room: ViewerRoom;
    viewer: RoomViewer;
    sse: SseStream;
    share: SeatShare;
    position: number;
    msg: (key: DisplayKey) => string;
    waitText: (position: number) => string;
    catchUpOf: (b: Broadcast) => Promise<CatchUpEvent | null>;
    log: FastifyBaseLogger;
  },
): () => void {
  const { b, room, viewer, sse } = w;
  let lastPosition = w.position;
  const timer = setInterval(() => {
    void (async () => {
      const next = await deps.seats.claim(b.id, viewer.id, room.maxViewers, SEAT_LEASE_MS, w.share);
      if ('overShare' in next) return; // only a newcomer is checked: a lapsed place asks again next time
      if (next.admitted) {
        clearInterval(timer);
        viewer.admitted = true;
        await deps.counter.count(b.id, next.viewers);
        sse.send('admitted', { message: w.msg('admitted') });
        room.seat(viewer);
        const catchUp = await w.catchUpOf((await deps.fanout.row(room)) ?? b);
        if (catchUp) sse.send(catchUp.event, sharedJson(catchUp.data), catchUp.id);
      } else if (next.position !== lastPosition) {
        lastPosition = next.position;
        sse.send('queued', { position: next.position, estimated_wait: w.waitText(next.position) });
      }
    })().catch((err: unknown) => w.log.warn({ err }, 'queue check failed'));
  }, QUEUE_POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * What a viewer gets before live events, read once its room's subscription is live (so
 * nothing falls between): its catch-up summary, then the latest finals (live), or the standby
 * message. Throwing here answers with an ordinary JSON error (the stream is not open yet).
 */
async function initialItems(
  deps: ViewerStreamDeps,
  b: Broadcast,
  room: ViewerRoom,
  viewer: RoomViewer,
  catchUpOf: (b: Broadcast) => Promise<CatchUpEvent | null>,
): Promise<ViewerItem[]> {
  const [log, row] = await Promise.all([
    room.joinState(async () => (await deps.bus.retained(viewerTopic(b.id))) as ViewerEvent[]),
    deps.fanout.row(room),
  ]);
  const current = row ?? b;
  const items: ViewerItem[] = [];
  if (current.status === 'revoked') throw new AppError('broadcast_token_revoked');
  if (current.status === 'ended') throw new AppError('broadcast_session_ended');
  const live = current.phase === 'live' || current.phase === 'paused';
  const catchUp = live && viewer.admitted ? await catchUpOf(current) : null;
  if (catchUp) items.push(catchUp);
  if (live) items.push(...replayOf(log));
  else {
    const standby = [...log].reverse().find((e) => e.event === 'standby');
    items.push({ event: 'standby', data: { message: viewer.msg('standby'), ...(standby?.data ?? {}) } });
  }
  return items;
}
