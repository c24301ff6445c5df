/**
 * The summary SSE endpoints (docs/summaries.md):
 * - `GET|POST /api/v1/sse/regenerate/summary/{taskId}`: preview (query) or persist (JSON body);
 *   the `api_key` query wins over the header here (spec "Authentication" 3);
 * - `POST /api/v1/sse/summary`: ad-hoc summary of posted text;
 * - `POST /api/v1/sse/summary/translate`: posted summary text translated;
 * - `GET /api/v1/sse/retranslate/summary/{taskId}?targetLang=`: the stored summary translated and saved.
 * Events: `connected` {message}, the text as it grows (`summary_regeneration` or
 * `summary_translation` {text (cumulative), is_final}), then `done`, or one `error` (the
 * standard error object) and no `done`. Checks that need no engine work fail before the stream
 * opens, as JSON errors with the SSE status table (errorVariant `sse`); a parameter the field
 * rules refuse is an `error` event with only `message`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { principalOf, requireApiKey } from '../platform/auth/hooks.js';
import type { Authenticator } from '../platform/auth/types.js';
import { asAppError, toErrorObject } from '../platform/errors/app-error.js';
import { errors, since, sse } from '../platform/http/api-doc.js';
import { ErrorEvent } from '../platform/http/event-schemas.js';
import { openSse, SSE_HEARTBEAT_MS } from '../platform/http/sse.js';
import type { HttpApp } from '../platform/http/types.js';
import { asFields, MAX_SUMMARY_INPUT_CHARS, optionalLanguage, ParameterError, parseSummaryParams, requiredLanguage } from './params.js';
import type { PreparedRun, SummaryService } from './service.js';

export interface SummaryRouteDeps {
  auth: Authenticator;
  summaries: SummaryService;
}

type TaskParams = { Params: { taskId: string } };

/** Posted texts may be 200,000 characters of any script, JSON-escaped. */
const TEXT_BODY_LIMIT = 4 * 1024 * 1024;

const field = (description: string) => Type.Optional(Type.Unknown({ description }));
const SUMMARY_FIELDS = {
  mode: field('Required: builtin or custom.'),
  template: field('builtin only (required there): an enabled template slug; forbidden for custom.'),
  prompt: field('custom only (required there): the instructions, max 3000 characters; forbidden for builtin.'),
  promptSlug: field('custom only (required there): your prompt slug, max 64 characters, no control characters; forbidden for builtin.'),
  language: field('Output language (BCP 47); default the first transcription language (ad-hoc: the text language).'),
  plainText: field('Boolean, default false: plain text instead of Markdown.'),
};
const TEXT_FIELD = { text: field(`Required: the text, at most ${MAX_SUMMARY_INPUT_CHARS} characters.`) };

const SUMMARY_EVENTS =
  'Events: connected {message}; summary_regeneration {text (cumulative), is_final} as the engine writes; done {task_id, tokens_used {input, output}, final_content, mode, template, plain_text, persisted, summary_language, prompt_snapshot (custom), truncated (only when true), fallback_level and dropped_segments (when a content-filter fallback ran), too_short (only when true), and when something was billed (every regeneration) characters_billed, charged (string), billed}; or error (standard error object; a parameter failure carries only message) and no done.';
const TRANSLATION_EVENTS =
  'Events: connected {message}; summary_translation {text (cumulative), is_final} line by line; done {task_id, source_language, target_language, final_content, persisted, characters_billed, charged (string), billed}; or error and no done.';

/** Present when something was billed. */
const BILLING = {
  characters_billed: Type.Optional(Type.Integer()),
  charged: Type.Optional(Type.String({ description: 'Points charged, as a decimal string' })),
  billed: Type.Optional(Type.Literal(true)),
};

/** `done` of a regenerated or ad-hoc summary (spec "Regenerate summary"). */
const SummaryDone = Type.Object({
  task_id: Type.Union([Type.String(), Type.Null()], { description: 'null for an ad-hoc summary' }),
  tokens_used: Type.Object({ input: Type.Integer(), output: Type.Integer() }),
  final_content: Type.String(),
  mode: Type.String({ description: 'builtin or custom' }),
  template: Type.Union([Type.String(), Type.Null()]),
  plain_text: Type.Boolean(),
  summary_language: Type.Union([Type.String(), Type.Null()]),
  persisted: Type.Boolean(),
  prompt_snapshot: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  truncated: Type.Optional(Type.Literal(true)),
  fallback_level: Type.Optional(Type.Integer()),
  dropped_segments: Type.Optional(Type.Array(Type.Integer())),
  too_short: Type.Optional(Type.Literal(true)),
  ...BILLING,
});

/** `done` of a summary translation. */
const TranslationDone = Type.Object({
  task_id: Type.Optional(Type.String({ description: 'Retranslation of a task summary only' })),
  source_language: Type.String(),
  target_language: Type.String(),
  final_content: Type.String(),
  persisted: Type.Boolean(),
  ...BILLING,
});

export function registerSummaryRoutes(app: HttpApp, deps: SummaryRouteDeps): void {
  const { summaries } = deps;
  const route = (
    keys: 'header-or-query' | 'query-wins',
    summary: string,
    description: string,
    schemas: { params?: TSchema; querystring?: TSchema; body?: TSchema; events: string; since?: string },
  ) => ({
    onRequest: requireApiKey(deps.auth, keys),
    config: { errorVariant: 'sse' as const },
    bodyLimit: TEXT_BODY_LIMIT,
    schema: {
      tags: ['sse'],
      security: [{ apiKey: [] }],
      summary,
      description,
      ...schemas,
      response: {
        200: sse(summary, {
          connected: Type.Object({ message: Type.String() }),
          [schemas.events]: Type.Object({ text: Type.String(), is_final: Type.Boolean() }),
          done: schemas.events === 'summary_translation' ? TranslationDone : SummaryDone,
          error: Type.Union([ErrorEvent, Type.Object({ message: Type.String() }, { description: 'A parameter failure: only message' })]),
        }),
        ...errors(
          [
            'recording_not_found',
            'sse_template_not_found',
            'sse_transcript_not_found',
            'summary_text_empty',
            'summary_text_too_long',
            'summary_mode_field_mismatch',
            'record_translation_not_allowed',
            'translation_language_unsupported',
            'invalid_processing_status',
            'plan_feature_not_allowed',
            'auth_insufficient_credit',
            'auth_quota_exceeded',
            'summary_insufficient_credit',
            'llm_init_failed',
          ],
          { auth: true, body: true, variant: 'sse' },
        ),
      },
      ...(schemas.since ? since(schemas.since) : {}),
    },
  });
  const taskId = Type.Object({ taskId: Type.String({ description: 'Task id (UUID).' }) });
  const regenerateDoc = (persist: boolean) =>
    `${persist ? 'Persists' : 'Previews'} a regenerated summary (billed regen_summary every time it reaches done, whichever summarizer${persist ? '; saves mode, template or slug, text, revision + 1 and the task summary language' : '; nothing saved'}). Key: api_key query wins over X-API-Key. Errors before the stream: 404 recording_not_found, sse_template_not_found, sse_transcript_not_found (still processing, or failed without a transcript); 400 summary_text_empty (the transcript has no text), summary_text_too_long (over 200000 characters); 422 summary_mode_field_mismatch; 403 plan_feature_not_allowed; 402 auth_insufficient_credit, summary_insufficient_credit; 503 llm_init_failed (custom prompt without a language model). Error events: sse_summary_regeneration_failed (nothing saved or billed), llm_*${persist ? ', storage_upload_failed, transcript_revision_conflict' : ''}. ${SUMMARY_EVENTS}`;

  app.get<TaskParams>(
    '/api/v1/sse/regenerate/summary/:taskId',
    route('query-wins', 'Regenerate summary (preview)', regenerateDoc(false), {
      params: taskId,
      querystring: Type.Object({ ...SUMMARY_FIELDS, api_key: field('API key (wins over the header on this endpoint).') }),
      events: 'summary_regeneration',
    }),
    (request, reply) =>
      runSse(request, reply, 'summary_regeneration', () =>
        summaries.prepareRegenerate(principalOf(request), request.params.taskId, parseSummaryParams(request.query, 'query'), false),
      ),
  );

  app.post<TaskParams>(
    '/api/v1/sse/regenerate/summary/:taskId',
    route('query-wins', 'Regenerate summary (persist)', regenerateDoc(true), {
      params: taskId,
      body: Type.Object(SUMMARY_FIELDS),
      events: 'summary_regeneration',
    }),
    (request, reply) =>
      runSse(request, reply, 'summary_regeneration', () =>
        summaries.prepareRegenerate(principalOf(request), request.params.taskId, parseSummaryParams(request.body, 'body'), true),
      ),
  );

  app.post(
    '/api/v1/sse/summary',
    route(
      'header-or-query',
      'Ad-hoc summary of posted text',
      `Summarizes the posted text (nothing stored; billed summary; a text too short to summarize is returned cleaned, too_short true, not billed). Same fields and rules as regenerate plus text. Errors before the stream: 400 summary_text_empty, summary_text_too_long; 404 sse_template_not_found; 422 summary_mode_field_mismatch; 403, 402, 503 as regenerate. ${SUMMARY_EVENTS}`,
      { body: Type.Object({ ...TEXT_FIELD, ...SUMMARY_FIELDS }), events: 'summary_regeneration', since: '1.9.1' },
    ),
    (request, reply) =>
      runSse(request, reply, 'summary_regeneration', () => {
        const fields = asFields(request.body);
        const text = typeof fields.text === 'string' ? fields.text : fields.text === undefined ? '' : null;
        if (text === null) throw new ParameterError('text must be a string.');
        return summaries.prepareAdHoc(principalOf(request), text, parseSummaryParams(fields, 'body'));
      }),
  );

  app.post(
    '/api/v1/sse/summary/translate',
    route(
      'header-or-query',
      'Summary translation',
      `Translates posted summary text into targetLang line by line, keeping its Markdown structure (nothing stored; billed summary_translate). Errors before the stream: 400 summary_text_empty, summary_text_too_long; 422 translation_language_unsupported; 403, 402 as regenerate. Error events: translation_failed, llm_*. ${TRANSLATION_EVENTS}`,
      {
        body: Type.Object({
          ...TEXT_FIELD,
          targetLang: field('Required: target language (BCP 47).'),
          sourceLang: field('Language of the text; default: identified from the text.'),
        }),
        events: 'summary_translation',
        since: '1.17.0',
      },
    ),
    (request, reply) =>
      runSse(request, reply, 'summary_translation', () => {
        const fields = asFields(request.body);
        const text = typeof fields.text === 'string' ? fields.text : fields.text === undefined ? '' : null;
        if (text === null) throw new ParameterError('text must be a string.');
        return summaries.prepareTranslate(
          principalOf(request),
          text,
          requiredLanguage(fields, 'targetLang'),
          optionalLanguage(fields, 'sourceLang'),
        );
      }),
  );

  app.get<TaskParams>(
    '/api/v1/sse/retranslate/summary/:taskId',
    route(
      'header-or-query',
      'Summary retranslation',
      `Translates the task's stored summary into targetLang and saves it in its place (summary_language becomes targetLang, revision + 1; billed summary_translate). Errors before the stream: 404 recording_not_found, sse_transcript_not_found (no summary); 400 record_translation_not_allowed; 422 translation_language_unsupported; 403, 402 as regenerate. Error events: translation_failed, llm_*, storage_upload_failed, transcript_revision_conflict. ${TRANSLATION_EVENTS}`,
      {
        params: taskId,
        querystring: Type.Object({ targetLang: field('Required: target language (BCP 47).'), api_key: field('API key.') }),
        events: 'summary_translation',
      },
    ),
    (request, reply) =>
      runSse(request, reply, 'summary_translation', () =>
        summaries.prepareRetranslate(principalOf(request), request.params.taskId, requiredLanguage(asFields(request.query), 'targetLang')),
      ),
  );
}

/**
 * Prepares (a thrown AppError becomes the JSON error response), then streams: connected, the
 * text as it grows (interim frames a slow client may skip), the final text, done. A client
 * that leaves aborts the work; nothing is charged then.
 */
async function runSse(
  request: FastifyRequest,
  reply: FastifyReply,
  textEvent: 'summary_regeneration' | 'summary_translation',
  prepare: () => Promise<PreparedRun>,
): Promise<void> {
  let prepared: PreparedRun;
  try {
    prepared = await prepare();
  } catch (err) {
    if (!(err instanceof ParameterError)) throw err;
    const sse = openSse(request, reply);
    sse.send('error', { message: err.message });
    sse.close();
    return;
  }
  const sse = openSse(request, reply, { heartbeatMs: SSE_HEARTBEAT_MS });
  const abort = new AbortController();
  void sse.done.then(() => abort.abort());
  sse.send('connected', { message: 'connected' });
  try {
    const done = await prepared.run((text) => sse.send(textEvent, { text, is_final: false }, undefined, { interim: true }), abort.signal);
    sse.send(textEvent, { text: done.final_content, is_final: true });
    sse.send('done', done);
  } catch (err) {
    if (abort.signal.aborted) return;
    const e = asAppError(err);
    if (e.code === 'internal_error') request.log.error({ err }, 'summary stream failed');
    sse.send('error', toErrorObject(e, request.id));
  } finally {
    sse.close();
  }
}
