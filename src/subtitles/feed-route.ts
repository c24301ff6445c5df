/**
 * `GET {realtime_url}/tasks/{task_id}/subtitle?feed_token=<TOKEN>` (spec "Floating subtitle
 * SSE"), served by the realtime role. Before the stream opens, refusals are JSON in the
 * `{error: <code>}` shape: 401 `feed_token_invalid`, 425 `recording_not_ready`, 410
 * `recording_ended`, 429 `subtitle_audience_full` (the audience is full, or this viewer's source
 * address or feed token already holds its share of the seats: the spec's `{error}` shape has
 * no room to tell the two apart). Then: `connected`, `viewers`, the replay
 * of the latest finals with their translations, the session's events as it publishes them
 * (from any node, over the bus), and `ended`, after which the server closes the stream.
 * Backpressure and the slow-consumer policy are the platform SSE helper's (streamToSse).
 * Event payloads: events.ts and docs/subtitles.md.
 */
import { randomUUID } from 'node:crypto';
import { Type } from 'typebox';
import { subtitleViewersTopic } from '../bus/topics.js';
import type { EventBus } from '../bus/types.js';
import { SentenceCorrectedSchema } from '../corrections/schemas.js';
import { AppError } from '../platform/errors/app-error.js';
import { errors, sse } from '../platform/http/api-doc.js';
import { MessageEvent, SPEAKER_EVENTS } from '../platform/http/event-schemas.js';
import { sourceOf } from '../platform/http/source.js';
import { type SourceShareRule, seatsPerSource } from '../platform/http/source-share.js';
import { type SseFrame, streamToSse } from '../platform/http/sse.js';
import type { HttpApp } from '../platform/http/types.js';
import type { SessionEvent } from '../stream/events.js';
import type { SessionStreams } from '../stream/session-streams.js';
import { type AudienceCounter, SEAT_LEASE_MS } from './audience.js';
import { endedEvent, type SubtitleEvent, toSubtitleEvent } from './events.js';
import type { SubtitleService } from './service.js';
import { hashSecret } from './store.js';

export interface FeedRouteDeps {
  subtitles: SubtitleService;
  bus: EventBus;
  streams: SessionStreams;
  audience: AudienceCounter;
  maxViewers: number;
  /** What one source (address, feed token) may hold of a recording's audience seats. */
  sourceSeats: SourceShareRule;
  /** Task languages for `connected`. */
  languagesOf(taskId: string): Promise<{ transcription_languages: string[]; translation_languages: string[] }>;
  /** How often an open stream uses its token again (sliding expiry; a revoked share ends it) and rechecks the recording. */
  recheckMs?: number;
  heartbeatMs?: number;
}

/** The events, for the OpenAPI document (the same table as docs/subtitles.md). */
const EVENTS_DOC = [
  'Events, in order: connected {task_id, role: owner|audience, transcription_languages, translation_languages};',
  'viewers {count (audience, owner not counted), max} at connect and whenever the audience changes;',
  'the replay of the latest finals (origin and translation, no interims); then live:',
  'origin {sid, text, language, is_final, start_time (mm:ss), speaker_id} for every result, interim and final;',
  'translation {sid, language, text, is_final} after its final; paused, resumed {message};',
  'speaker_renamed, speaker_reassigned, speakers_merged (speaker edits and live diarization corrections, the broadcast viewer shapes);',
  'sentence_corrected (a final sentence corrected or a correction undone, the owner WebSocket shape);',
  'channel_added, channel_removed, channel_language_set (multi_channel changes, as the owner WebSocket gets them);',
  'ended {task_id, message}, after which the server closes the stream;',
  'error {error_code, message} when the token stops working (share revoked or replaced), then close.',
  'origin and translation carry the session sequence number as the SSE id. Heartbeat comment every 10 s.',
].join(' ');

/** The channels of a multi_channel recording after a change (as the owner's WebSocket gets them). */
const Channels = Type.Array(Type.Object({}, { additionalProperties: true }));

type Req = { Params: { taskId: string }; Querystring: { feed_token?: string } };
type Item = { session: SessionEvent } | { frame: SubtitleEvent };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEARTBEAT_MS = 10_000; // below the seat lease / 2, renewed at each heartbeat

function frameOf(item: Item): SseFrame | null {
  const e = 'session' in item ? toSubtitleEvent(item.session) : item.frame;
  if (!e) return null;
  const interim = (e.event === 'origin' || e.event === 'translation') && e.data.is_final === false;
  return { event: e.event, data: e.data, id: e.id, interim, end: e.event === 'ended' || e.event === 'error' };
}

export function registerSubtitleFeedRoute(app: HttpApp, deps: FeedRouteDeps): void {
  const recheckMs = deps.recheckMs ?? 60_000;
  const heartbeatMs = Math.min(deps.heartbeatMs ?? HEARTBEAT_MS, SEAT_LEASE_MS / 3, recheckMs);
  app.get<Req>(
    '/tasks/:taskId/subtitle',
    {
      config: { errorShape: 'subtitle-token' as const, errorVariant: 'sse' as const },
      schema: {
        tags: ['floating subtitles'],
        summary:
          'Floating-subtitle SSE of a live recording: connected, viewers, origin and translation (replay of the latest finals first), paused, resumed, ended',
        description: EVENTS_DOC,
        params: Type.Object({ taskId: Type.String({ description: 'Task id of the live recording' }) }),
        security: [],
        querystring: Type.Object({ feed_token: Type.Optional(Type.String({ description: 'From either subtitle-feed-token endpoint' })) }),
        response: {
          200: sse('Live transcript of a recording in progress.', {
            connected: Type.Object({
              task_id: Type.String(),
              role: Type.String({ description: 'owner or audience' }),
              transcription_languages: Type.Union([Type.Array(Type.String()), Type.Null()]),
              translation_languages: Type.Union([Type.Array(Type.String()), Type.Null()]),
            }),
            viewers: Type.Object({ count: Type.Integer(), max: Type.Integer() }),
            origin: Type.Object({
              sid: Type.Integer(),
              text: Type.String(),
              language: Type.String(),
              is_final: Type.Boolean(),
              start_time: Type.String({ description: 'mm:ss from the recording start' }),
              speaker_id: Type.Union([Type.String(), Type.Null()]),
            }),
            translation: Type.Object({ sid: Type.Integer(), language: Type.String(), text: Type.String(), is_final: Type.Boolean() }),
            ...SPEAKER_EVENTS,
            sentence_corrected: SentenceCorrectedSchema,
            channel_added: Type.Object(
              { task_id: Type.String(), channel_id: Type.Integer(), language: Type.String(), channels: Channels },
              { additionalProperties: true },
            ),
            channel_removed: Type.Object({ task_id: Type.String(), channel_id: Type.Integer(), channels: Channels }),
            channel_language_set: Type.Object({
              task_id: Type.String(),
              channel_id: Type.Integer(),
              language: Type.String(),
              previous_language: Type.String(),
              channels: Channels,
            }),
            paused: MessageEvent,
            resumed: MessageEvent,
            ended: Type.Object({ task_id: Type.String(), message: Type.String() }),
            error: Type.Object({ error_code: Type.String(), message: Type.String() }, { description: 'The feed token stopped working' }),
          }),
          ...errors(['feed_token_invalid', 'recording_ended', 'recording_not_ready', 'subtitle_audience_full'], {
            shape: 'subtitle-token',
            variant: 'sse',
          }),
        },
      },
    },
    async (request, reply) => {
      const taskId = UUID.test(request.params.taskId) ? request.params.taskId.toLowerCase() : '';
      const token = request.query.feed_token;
      const grant = await deps.subtitles.useToken(taskId, token);
      const state = await deps.subtitles.liveState(taskId);
      if (state === 'ended') throw new AppError('recording_ended');
      if (state === 'not_ready') throw new AppError('recording_not_ready');
      const { maxViewers } = deps;
      const viewers = (count: number): Item => ({ frame: { event: 'viewers', data: { count, max: maxViewers } } });

      // The audience: a seat per viewer (the owner takes none), leased, shared by every process.
      const viewerId = randomUUID();
      const seated = grant.kind === 'audience';
      // The viewer's share keys: its source address and its feed token (hashed, as stored), so
      // that neither one address nor one token passed around can take the whole audience.
      const shareKeys = [`src:${sourceOf(request.ip)}`, `tok:${hashSecret(token ?? '')}`];
      let count = await deps.audience.count(taskId);
      if (seated) {
        const share = { keys: shareKeys, limit: seatsPerSource(deps.sourceSeats, maxViewers) };
        const seat = await deps.audience.join(taskId, viewerId, maxViewers, share);
        if (!seat.ok) {
          // The body can only say the code; the log says which limit it was.
          if (seat.reason === 'share')
            request.log.info({ taskId, perSource: share.limit }, 'subtitle seat refused: the source holds its share');
          throw new AppError('subtitle_audience_full');
        }
        count = seat.count;
      }
      const leave = async () => {
        if (!seated) return;
        const left = await deps.audience.leave(taskId, viewerId, shareKeys);
        await deps.bus.publish(subtitleViewersTopic(taskId), { count: left, max: maxViewers });
      };

      let sinceRecheck = 0;
      try {
        const sse = await streamToSse<Item>(
          request,
          reply,
          {
            async subscribe(push) {
              const offViewers = await deps.bus.subscribe(subtitleViewersTopic(taskId), (m) => push(viewers(m.count)));
              // The replay comes first (pushed before this resolves), then live events, each once, in order.
              const session = await deps.streams.subscribe(taskId, (e) => push({ session: e }), { replay: true });
              return () => {
                session.close();
                offViewers();
              };
            },
            async initial() {
              const connected = { task_id: taskId, role: grant.kind, ...(await deps.languagesOf(taskId)) };
              return [{ frame: { event: 'connected', data: connected } }, ...(seated ? [] : [viewers(count)])];
            },
            frame: frameOf,
            // Every heartbeat renews the seat; every recheckMs the token is used again (its
            // expiry slides; a revoked or replaced share ends the stream) and the recording is
            // rechecked (a session that died without `ended` still ends its viewers' streams).
            async onHeartbeat() {
              if (seated) await deps.audience.renew(taskId, viewerId, shareKeys);
              sinceRecheck += heartbeatMs;
              if (sinceRecheck < recheckMs) return [];
              sinceRecheck = 0;
              try {
                await deps.subtitles.useToken(taskId, token);
              } catch (err) {
                if (!(err instanceof AppError)) throw err;
                return [{ frame: { event: 'error', data: { error_code: err.code, message: err.message } } }];
              }
              return (await deps.subtitles.liveState(taskId)) === 'ended' ? [{ frame: endedEvent(taskId) }] : [];
            },
          },
          { heartbeatMs },
        );
        // Everyone watching (this viewer included: it is subscribed) hears of the new audience.
        if (seated) await deps.bus.publish(subtitleViewersTopic(taskId), { count, max: maxViewers });
        void sse.done.then(() => leave().catch((err: unknown) => request.log.warn({ err }, 'subtitle seat not released')));
      } catch (err) {
        await leave().catch(() => {});
        throw err;
      }
    },
  );
}
