/**
 * Downloads: `GET /api/v1/tasks/{id}/transcript/export` and `GET /api/v1/tasks/{id}/audio/export`.
 *
 * Transcript: `format` = txt (default) | srt | sbv | vtt | csv; `language` = one of the task's
 * translation languages, written instead of the original text (CSV: that language's column
 * only); `speakers` = true | false, speaker labels (current aliases) before each line, on by
 * default for diarized recordings. Audio: `format` = m4a (default, the stored file) | mp3.
 */

import { Type } from 'typebox';
import { normalizeLanguage } from '../languages.js';
import { principalOf, requireApiKey } from '../platform/auth/hooks.js';
import { AppError } from '../platform/errors/app-error.js';
import { API_KEY, binary, documentedInput, errors, TaskIdParams } from '../platform/http/api-doc.js';
import type { HttpApp } from '../platform/http/types.js';
import { AUDIO_FORMATS, AUDIO_TYPES, mp3Stream } from './exports/audio.js';
import { attachment, CONTENT_TYPES, EXPORT_FORMATS, safeBaseName, WRITERS } from './exports/writers.js';
import type { TaskRouteDeps } from './route-deps.js';
import { hasDiarization } from './status.js';
import type { SentenceRecord } from './store.js';
import { invalid, oneOf, optionalBool } from './validate.js';

type IdParams = { Params: { taskId: string } };

export function registerExportRoutes(app: HttpApp, deps: TaskRouteDeps): void {
  const { tasks } = deps;
  // Query checked by hand (oneOf/optionalBool: 422 with the allowed values); schemas document it.
  const base = { onRequest: requireApiKey(deps.auth, 'header'), ...documentedInput };
  const op = { tags: ['tasks'], security: API_KEY, params: TaskIdParams };

  app.get<IdParams>(
    '/api/v1/tasks/:taskId/transcript/export',
    {
      ...base,
      schema: {
        ...op,
        summary: 'Download the transcript as TXT, SRT, SBV, VTT or CSV',
        description:
          "language: one of the task's translation languages, written instead of the original text (CSV: that column only). speakers: speaker labels before each line, on by default for diarized recordings.",
        querystring: Type.Object({
          format: Type.Optional(
            Type.Union(
              EXPORT_FORMATS.map((f) => Type.Literal(f)),
              { default: 'txt' },
            ),
          ),
          language: Type.Optional(Type.String()),
          speakers: Type.Optional(Type.Boolean()),
        }),
        response: {
          200: binary(
            Object.values(CONTENT_TYPES).map((t) => t.split(';')[0] as string),
            'The transcript file (Content-Disposition: attachment)',
          ),
          ...errors(['recording_not_found'], { auth: true, input: true }),
        },
      },
    },
    async (request, reply) => {
      const task = await tasks.owned(principalOf(request), request.params.taskId);
      const query = request.query as Record<string, unknown>;
      const format = oneOf(query, 'format', EXPORT_FORMATS, 'txt');
      let language: string | null = null;
      if (query.language !== undefined && query.language !== '') {
        const tag = typeof query.language === 'string' ? normalizeLanguage(query.language) : null;
        const known = task.translationLanguages ?? [];
        language = known.find((l) => normalizeLanguage(l) === tag) ?? null;
        if (!language) throw invalid('language', 'language must be one of the translation languages of this task.', { allowed: known });
      }
      const speakers = optionalBool(query, 'speakers') ?? hasDiarization(task.recognitionMode);
      const transcript = await tasks.store.getTranscript(task.taskId);
      const sentences: SentenceRecord[] = [];
      for await (const page of tasks.store.allSentences(task.taskId)) sentences.push(...page);
      const text = WRITERS[format]({
        sentences,
        labels: transcript?.speakerLabels ?? {},
        language,
        speakers,
        translationColumns: language ? [language] : (task.translationLanguages ?? []),
      });
      const name = `${safeBaseName(task.title, task.taskId)}${language ? `.${language}` : ''}.${format}`;
      return reply.type(CONTENT_TYPES[format]).header('Content-Disposition', attachment(name)).send(text);
    },
  );

  app.get<IdParams>(
    '/api/v1/tasks/:taskId/audio/export',
    {
      ...base,
      schema: {
        ...op,
        summary: 'Download the audio: m4a (the stored file) or mp3 (encoded on the fly)',
        querystring: Type.Object({
          format: Type.Optional(
            Type.Union(
              AUDIO_FORMATS.map((f) => Type.Literal(f)),
              { default: 'm4a' },
            ),
          ),
        }),
        response: {
          200: binary(Object.values(AUDIO_TYPES), 'The audio file (Content-Disposition: attachment)'),
          ...errors(['recording_not_found', 'recording_audio_not_ready'], { auth: true, input: true }),
        },
      },
    },
    async (request, reply) => {
      const task = await tasks.owned(principalOf(request), request.params.taskId);
      const format = oneOf(request.query as Record<string, unknown>, 'format', AUDIO_FORMATS, 'm4a');
      const info = task.audioKey ? await deps.blobs.stat(task.audioKey) : null;
      if (!task.audioKey || !info) throw new AppError('recording_audio_not_ready', { details: { task_id: task.taskId } });
      const name = `${safeBaseName(task.title, task.taskId)}.${format}`;
      reply.type(AUDIO_TYPES[format]).header('Content-Disposition', attachment(name));
      if (format === 'm4a') {
        return reply.header('Content-Length', info.size).send(await deps.blobs.get(task.audioKey));
      }
      const stream = await mp3Stream(deps.blobs, task.audioKey, deps.audio, (err) =>
        request.log.error({ err, task_id: task.taskId }, 'mp3 export failed'),
      );
      return reply.send(stream);
    },
  );
}
