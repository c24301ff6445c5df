/**
 * Sentence corrections over REST (api role, header `X-API-Key`), siblings of the spec's
 * speaker editing under the task:
 * - `PATCH /api/v1/tasks/{taskId}/sentences/{sid}` {text, revision?}: the corrected text,
 *   retranslated into the sentence's languages (billed as a one-sentence retranslation);
 * - `POST /api/v1/tasks/{taskId}/sentences/{sid}/undo` {revision?}: back to the text and
 *   translations the latest change replaced (free);
 * - `GET /api/v1/tasks/{taskId}/sentences/{sid}/revisions`: the sentence's history.
 * Input is checked by hand (rules.ts: the registry's codes, details.field); the schemas document it.
 */
import { Type } from 'typebox';
import { principalOf, requireApiKey } from '../platform/auth/hooks.js';
import type { Authenticator } from '../platform/auth/types.js';
import { API_KEY, Data, documentedInput, errors, Uuid } from '../platform/http/api-doc.js';
import { ok } from '../platform/http/reply.js';
import type { HttpApp } from '../platform/http/types.js';
import { parseSid } from '../retranslate/service.js';
import { bodyObject } from '../tasks/validate.js';
import { MAX_CORRECTION_CHARS } from './rules.js';
import { correctedFields, TextMap } from './schemas.js';
import type { CorrectionService } from './service.js';

export interface CorrectionRouteDeps {
  auth: Authenticator;
  corrections: CorrectionService;
}

type SentenceParams = { Params: { taskId: string; sid: string } };

const Params = Type.Object({ taskId: Uuid('Task id (UUID)'), sid: Type.String({ description: 'Sentence id (an integer from 1)' }) });
const Revision = Type.Integer({
  minimum: 0,
  description: 'The revision you edited (optional): a newer one answers 409 sentence_revision_conflict with details.revision.',
});
const Corrected = Type.Object({ ...correctedFields, charged: Type.Number({ description: 'Points charged' }) });

const Revisions = Type.Object({
  task_id: Uuid(),
  sid: Type.Integer(),
  revision: Type.Integer(),
  text: Type.String(),
  revisions: Type.Array(
    Type.Object({
      revision: Type.Integer(),
      kind: Type.Union([Type.Literal('recognized'), Type.Literal('correction'), Type.Literal('undo')]),
      based_on: Type.Union([Type.Integer(), Type.Null()]),
      text: Type.String(),
      translations: TextMap,
      created_at: Type.String(),
    }),
  ),
});

export function registerCorrectionRoutes(app: HttpApp, deps: CorrectionRouteDeps): void {
  const base = { onRequest: requireApiKey(deps.auth, 'header'), ...documentedInput };
  const op = (summary: string, description: string) => ({ tags: ['corrections'], summary, description, security: API_KEY });
  const lookup = ['recording_not_found', 'invalid_processing_status', 'sentence_not_found', 'sentence_revision_conflict'] as const;

  app.patch<SentenceParams>(
    '/api/v1/tasks/:taskId/sentences/:sid',
    {
      ...base,
      schema: {
        ...op(
          'Correct a sentence: new text, retranslated, stored as its next revision',
          `text: 1 to ${MAX_CORRECTION_CHARS} characters after trimming (line breaks become spaces). The sentence is retranslated into every language it has or the task lists, billed as a one-sentence retranslation (usage type retranslate). Exports, history and search show the new text at once. A task still recording is corrected with the WebSocket action correct_sentence.`,
        ),
        params: Params,
        body: Type.Object({ text: Type.String({ maxLength: MAX_CORRECTION_CHARS * 2 }), revision: Type.Optional(Revision) }),
        response: {
          200: Data(Corrected),
          ...errors(
            [
              ...lookup,
              'sentence_text_empty',
              'sentence_text_too_long',
              'plan_feature_not_allowed',
              'auth_insufficient_credit',
              'auth_quota_exceeded',
            ],
            { auth: true, body: true },
          ),
        },
      },
    },
    async (request) =>
      ok(
        await deps.corrections.correct(principalOf(request), request.params.taskId, parseSid(request.params.sid), bodyObject(request.body)),
      ),
  );

  app.post<SentenceParams>(
    '/api/v1/tasks/:taskId/sentences/:sid/undo',
    {
      ...base,
      schema: {
        ...op(
          'Undo the latest correction of a sentence',
          'Restores the text and translations the latest change replaced, as the next revision; repeated undos go further back, to the text as recognized. Nothing is translated or charged.',
        ),
        params: Params,
        body: Type.Optional(Type.Object({ revision: Type.Optional(Revision) })),
        response: { 200: Data(Corrected), ...errors([...lookup, 'sentence_nothing_to_undo'], { auth: true, body: true }) },
      },
    },
    async (request) =>
      ok(await deps.corrections.undo(principalOf(request), request.params.taskId, parseSid(request.params.sid), bodyObject(request.body))),
  );

  app.get<SentenceParams>(
    '/api/v1/tasks/:taskId/sentences/:sid/revisions',
    {
      ...base,
      schema: {
        ...op('The revisions of a sentence, oldest first', 'Empty for a sentence never corrected (its revision is 0).'),
        params: Params,
        response: { 200: Data(Revisions), ...errors(['recording_not_found', 'sentence_not_found'], { auth: true, input: true }) },
      },
    },
    async (request) => ok(await deps.corrections.revisions(principalOf(request), request.params.taskId, parseSid(request.params.sid))),
  );
}
