/**
 * Downloads: `GET /api/v1/tasks/{id}/transcript/export` and `GET /api/v1/tasks/{id}/audio/export`.
 *
 * Transcript: `format` = txt (default) | srt | sbv | vtt | csv; `language` = one of the task's
 * translation languages, written instead of the original text (CSV: that language's column
 * only); `speakers` = true | false, speaker labels (current aliases) before each line, on by
 * default for diarized recordings. Audio: `format` = m4a (default, the stored file) | mp3.
 */
import { normalizeLanguage } from '../languages.js';
import { principalOf, requireApiKey } from '../platform/auth/hooks.js';
import { AppError } from '../platform/errors/app-error.js';
import type { HttpApp } from '../platform/http/types.js';
import { AUDIO_FORMATS, AUDIO_TYPES, mp3Stream } from './exports/audio.js';
import { attachment, CONTENT_TYPES, EXPORT_FORMATS, safeBaseName, WRITERS } from './exports/writers.js';
import type { TaskRouteDeps } from './route-deps.js';
import { hasDiarization } from './status.js';
import type { SentenceRecord } from './store.js';
import { doc, invalid, oneOf, optionalBool } from './validate.js';

type IdParams = { Params: { taskId: string } };

export function registerExportRoutes(app: HttpApp, deps: TaskRouteDeps): void {
  const { tasks } = deps;
  const base = { onRequest: requireApiKey(deps.auth, 'header'), schema: { tags: ['tasks'], security: [{ apiKey: [] }] } };

  app.get<IdParams>(
    '/api/v1/tasks/:taskId/transcript/export',
    doc(base, 'Download the transcript: format txt|srt|sbv|vtt|csv, language (a translation language), speakers true|false.'),
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
    doc(base, 'Download the audio: format m4a (stored file) or mp3 (encoded on the fly).'),
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
