/**
 * GET and PUT /api/v1/broadcasts/{id}/caption-sinks (X-API-Key): the broadcast's caption
 * sinks with their delivery status, and the whole list set at once (docs/broadcasts.md,
 * "Caption sinks").
 */
import { Type } from 'typebox';
import { principalOf, requireApiKey } from '../../platform/auth/hooks.js';
import type { Authenticator } from '../../platform/auth/types.js';
import { API_KEY, documentedInput, errors, Uuid } from '../../platform/http/api-doc.js';
import { ok } from '../../platform/http/reply.js';
import type { HttpApp } from '../../platform/http/types.js';
import { SINK_KINDS } from './protocol.js';
import { LINE_LENGTH, MAX_SINKS } from './rules.js';
import type { SinkService } from './service.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Kind = Type.Union(SINK_KINDS.map((k) => Type.Literal(k)));

const SinkInput = Type.Object({
  type: Kind,
  url: Type.String({
    format: 'uri',
    description: "The platform's caption URL: YouTube's ingestion URL, or Zoom's API token (seq and lang are added per POST)",
  }),
  language: Type.Optional(
    Nullable(Type.String({ description: 'A translation language of the broadcast; omitted or null: the source text' })),
  ),
  region: Type.Optional(Nullable(Type.String({ maxLength: 64, description: 'YouTube only: region tag of each caption (e.g. reg1#cue1)' }))),
  line_length: Type.Optional(
    Nullable(Type.Integer({ ...{ minimum: LINE_LENGTH.min, maximum: LINE_LENGTH.max }, description: 'Characters per caption line' })),
  ),
});

const Sink = Type.Object({
  id: Type.String({ format: 'uuid' }),
  type: Kind,
  url: Type.Union([Type.String(), Type.Null()], { description: 'Scheme, host and path only (the query holds the credentials)' }),
  language: Nullable(Type.String()),
  region: Nullable(Type.String()),
  line_length: Nullable(Type.Integer()),
  status: Type.Object({
    state: Type.Union(
      ['idle', 'ok', 'retrying', 'failed'].map((s) => Type.Literal(s)),
      {
        description:
          'idle: nothing sent yet; ok: the last POST was accepted; retrying: a POST failed and is tried again; failed: the last captions were given up',
      },
    ),
    last_seq: Nullable(Type.Integer({ description: 'seq of the last accepted POST' })),
    last_success_at: Nullable(Type.String({ format: 'date-time' })),
    last_error: Nullable(Type.String()),
    last_error_at: Nullable(Type.String({ format: 'date-time' })),
    captions_sent: Type.Integer(),
    captions_dropped: Type.Integer(),
  }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

const SinkList = Type.Object({ data: Type.Array(Sink) });

export function registerSinkRoutes(app: HttpApp, deps: { auth: Authenticator; sinks: SinkService }): void {
  const onRequest = requireApiKey(deps.auth, 'header');
  const params = Type.Object({ id: Uuid('Broadcast id (from creation)') });
  type IdParams = { Params: { id: string } };

  app.get<IdParams>(
    '/api/v1/broadcasts/:id/caption-sinks',
    {
      onRequest,
      ...documentedInput,
      schema: {
        tags: ['broadcasts'],
        security: API_KEY,
        summary: "The broadcast's caption sinks (YouTube Live, Zoom) with each one's delivery status.",
        params,
        response: { 200: SinkList, ...errors(['broadcast_not_found'], { auth: true }) },
      },
    },
    async (request) => ok(await deps.sinks.list(principalOf(request), request.params.id)),
  );

  app.put<IdParams>(
    '/api/v1/broadcasts/:id/caption-sinks',
    {
      onRequest,
      ...documentedInput,
      schema: {
        tags: ['broadcasts'],
        security: API_KEY,
        summary: `Set the caption sinks (up to ${MAX_SINKS}; [] removes them). A sink listed again keeps its sequence and status. Until the broadcast ends.`,
        params,
        body: Type.Object({ caption_sinks: Type.Array(SinkInput, { maxItems: MAX_SINKS }) }),
        response: { 200: SinkList, ...errors(['broadcast_not_found', 'broadcast_not_editable'], { auth: true, body: true }) },
      },
    },
    async (request) => ok(await deps.sinks.replace(principalOf(request), request.params.id, request.body)),
  );
}
