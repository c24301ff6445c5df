/**
 * `POST /api/v1/glossary/validate` (realtime role; the spec serves it from the real-time
 * domain): checks a glossary before a client saves it or sends it with the WebSocket
 * `config` action. Body: the same three fields as the import form and `config`
 * (`terminology`, `fuzzy_correction`, `translation_dict`), each an object or a JSON string.
 * 200 `{data: {valid: true, terminology, fuzzy_correction, translation_dict, languages,
 * conflicts}}`; an invalid glossary answers the first problem's `config_*` code (400, 413 for
 * `config_payload_too_large`) with the first 100 problems in `details.problems`.
 */
import { Type } from 'typebox';
import { principalOf, requireApiKey } from '../platform/auth/hooks.js';
import type { Authenticator } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import { API_KEY, Data, errors, since } from '../platform/http/api-doc.js';
import { ok } from '../platform/http/reply.js';
import type { HttpApp } from '../platform/http/types.js';
import { findConflicts, glossaryCounts } from './conflicts.js';
import { glossarySocketError } from './errors.js';
import type { GlossaryLimits } from './types.js';
import { parseGlossary } from './validate.js';

/** Room for the JSON around the three fields: a body beyond the glossary limit by more is refused unread. */
const ENVELOPE_BYTES = 64 * 1024;

export function registerGlossaryRoutes(app: HttpApp, deps: { auth: Authenticator; limits: GlossaryLimits }): void {
  const bodyLimit = deps.limits.maxPayloadBytes + ENVELOPE_BYTES;
  app.post(
    '/api/v1/glossary/validate',
    {
      bodyLimit,
      // A declared length over the limit is answered with the glossary's own code, not request_too_large.
      preParsing: async (request) => {
        const declared = Number(request.headers['content-length'] ?? 0);
        if (declared > bodyLimit) {
          throw new AppError('config_payload_too_large', {
            message: `The glossary is ${declared} bytes; at most ${deps.limits.maxPayloadBytes} are accepted.`,
            details: { actual: declared, limit: deps.limits.maxPayloadBytes },
          });
        }
      },
      preHandler: requireApiKey(deps.auth, 'header'),
      schema: {
        tags: ['glossary'],
        summary: 'Validate a glossary (terminology, fuzzy_correction, translation_dict) and list its conflicts.',
        body: Type.Object({
          terminology: Type.Optional(Type.Unknown()),
          fuzzy_correction: Type.Optional(Type.Unknown()),
          translation_dict: Type.Optional(Type.Unknown()),
        }),
        description:
          'The same three fields as the import form and the WebSocket config action, as JSON values (not strings). 200 with the entry counts and the conflicts found; a glossary over its limits is refused with the first problem.',
        security: API_KEY,
        response: {
          200: Data(
            Type.Object({
              valid: Type.Literal(true),
              terminology: Type.Integer(),
              fuzzy_correction: Type.Integer(),
              translation_dict: Type.Integer(),
              conflicts: Type.Array(
                Type.Object({
                  kind: Type.String(),
                  field: Type.String(),
                  language: Type.String(),
                  value: Type.String(),
                  indexes: Type.Array(Type.Integer()),
                  candidates: Type.Array(Type.String()),
                }),
              ),
            }),
          ),
          ...errors(
            [
              'config_empty',
              'config_term_too_long',
              'config_too_many_entries',
              'config_too_many_dict_entries',
              'config_invalid_entry',
              'config_too_many_languages',
              'config_payload_too_large',
            ],
            { auth: true, body: true },
          ),
        },
        ...since('1.14.0'),
      },
    },
    async (request) => {
      principalOf(request);
      const body = request.body as Record<string, unknown>;
      const parsed = parseGlossary(
        { terminology: body.terminology, fuzzy_correction: body.fuzzy_correction, translation_dict: body.translation_dict },
        deps.limits,
      );
      if (!parsed.ok) {
        const first = parsed.problems[0]!;
        const ws = glossarySocketError(parsed.problems);
        throw new AppError(ws.code, {
          message: ws.message,
          details: { field: first.field, actual: first.actual ?? null, limit: first.limit ?? null, ...ws.details },
        });
      }
      const counts = glossaryCounts(parsed.glossary);
      if (counts.terminology + counts.fuzzy_correction + counts.translation_dict === 0) {
        throw new AppError('config_empty', { message: 'Send at least one of terminology, fuzzy_correction, translation_dict.' });
      }
      return ok({ valid: true, ...counts, conflicts: findConflicts(parsed.glossary) });
    },
  );
}
