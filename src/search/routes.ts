/**
 * GET /api/v1/search (a Parley extension, docs/search.md): full-text search over the
 * caller's tasks, shaped like the spec's paged lists (`page`, `per_page`, `data` and `meta`;
 * header key; `validation_failed` with the field for a bad parameter).
 */
import { Type } from 'typebox';
import { principalOf, requireApiKey } from '../platform/auth/hooks.js';
import type { Authenticator } from '../platform/auth/types.js';
import { API_KEY, documentedInput, errors, IsoTime, Nullable, PageMeta, Uuid } from '../platform/http/api-doc.js';
import type { HttpApp } from '../platform/http/types.js';
import { MAX_QUERY_CHARS } from './query.js';
import { PER_PAGE, type SearchService, searchRequest } from './service.js';
import { RANKED_MATCHES } from './store.js';

const Hit = Type.Object({
  task_id: Uuid(),
  title: Type.String(),
  type: Type.Union([Type.Literal('transcribe'), Type.Literal('conversation'), Type.Literal('record'), Type.Literal('broadcast')]),
  type_source: Type.String(),
  created_at: IsoTime("The task's creation time"),
  duration_ms: Type.Integer(),
  field: Type.Union(
    [Type.Literal('title'), Type.Literal('transcript'), Type.Literal('translation'), Type.Literal('summary'), Type.Literal('speaker')],
    { description: 'Where the words were found' },
  ),
  sid: Nullable(Type.Integer({ description: 'The sentence (transcript and translation hits)' })),
  language: Nullable(Type.String({ description: 'Language of the text found; null for titles and speaker names' })),
  speaker_id: Nullable(Type.String({ description: 'Original speaker id of the sentence, or of the speaker named' })),
  speaker_label: Nullable(Type.String({ description: 'The speaker as shown (display label, else the id)' })),
  start_ms: Nullable(
    Type.Integer({
      description:
        "Where the player jumps: the sentence's start (a speaker name: the speaker's first sentence); null for a title or summary",
    }),
  ),
  end_ms: Nullable(Type.Integer()),
  snippet: Type.String({ description: 'The text found (cut around the first match when long, with … where cut)' }),
  highlights: Type.Array(Type.Object({ start: Type.Integer(), end: Type.Integer() }), {
    description: 'The matches in `snippet`: UTF-16 offsets, end exclusive',
  }),
});

// The paged lists' meta, and whether `total` stopped at the bound of matches ranked.
const SearchMeta = Type.Object({
  ...PageMeta.properties,
  total_capped: Type.Boolean({
    description: `true when more than ${RANKED_MATCHES} entries match: the newest ${RANKED_MATCHES} of them are ranked and paged, and total is ${RANKED_MATCHES}`,
  }),
});

export function registerSearchRoutes(app: HttpApp, deps: { auth: Authenticator; search: SearchService }): void {
  app.get(
    '/api/v1/search',
    {
      onRequest: requireApiKey(deps.auth, 'header'),
      // Checked by hand (service.ts): each bad value gets validation_failed with its field.
      ...documentedInput,
      schema: {
        tags: ['search'],
        security: API_KEY,
        summary: 'Search the task library: titles, transcripts, translations, summaries, speaker names',
        description: `Words must all occur (whole words, case-insensitive); "quoted words" are a phrase; word* is a prefix. Best matches first (a title above a speaker name above text), then newest task; when more than ${RANKED_MATCHES} entries match, the newest ${RANKED_MATCHES} are ranked (meta.total_capped). Filters narrow the hits: type, language (en also matches en-US; titles and speaker names have none), from/to (the task's creation time; a date is a whole UTC day, to is inclusive of it), speaker (original id or display label). Live sessions are searchable within about a second of each final.`,
        querystring: Type.Object({
          q: Type.String({ minLength: 1, maxLength: MAX_QUERY_CHARS, description: 'What to find' }),
          type: Type.Optional(
            Type.Union([Type.Literal('transcribe'), Type.Literal('conversation'), Type.Literal('record'), Type.Literal('broadcast')]),
          ),
          language: Type.Optional(Type.String({ description: 'BCP 47 tag' })),
          from: Type.Optional(Type.String({ description: 'ISO 8601 date or date-time, inclusive' })),
          to: Type.Optional(Type.String({ description: 'ISO 8601 date (inclusive day) or date-time (exclusive)' })),
          speaker: Type.Optional(Type.String({ maxLength: 100 })),
          page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1 })),
          per_page: Type.Optional(Type.Integer({ minimum: PER_PAGE.min, maximum: PER_PAGE.max, default: PER_PAGE.fallback })),
        }),
        response: {
          200: Type.Object({ data: Type.Array(Hit), meta: SearchMeta }),
          ...errors([], { auth: true, input: true }),
        },
      },
    },
    async (request) => deps.search.search(principalOf(request), searchRequest(request.query as Record<string, unknown>)),
  );
}
