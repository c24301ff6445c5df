/**
 * SSE routes of a task, keyed by header or `api_key` query:
 * - `GET /api/v1/sse/history/transcribe/{id}`: connected, init_metadata, init_sentence...,
 *   init_summary (always exactly one; null fields and empty text without a summary),
 *   init_done {totalSentences}, then the stream ends.
 * - `GET /api/v1/sse/audio/{id}`: the M4A, 200 whole or 206 for one byte range.
 * Errors before the stream opens are JSON error responses (errorVariant `sse`).
 */

import { Type } from 'typebox';
import { principalOf, requireApiKey } from '../platform/auth/hooks.js';
import { AppError } from '../platform/errors/app-error.js';
import { API_KEY_OR_QUERY, binary, documentedInput, errorObject, errors, NoBody, sse, TaskIdParams } from '../platform/http/api-doc.js';
import { openSse } from '../platform/http/sse.js';
import type { HttpApp } from '../platform/http/types.js';
import { sentenceShape } from './format.js';
import { parseRange } from './range.js';
import type { TaskRouteDeps } from './route-deps.js';
import { Sentence, SummaryPayload } from './schemas.js';
import { hasDiarization } from './status.js';
import type { SummaryRecord } from './store.js';

type IdParams = { Params: { taskId: string } };

export function summaryPayload(s: SummaryRecord | null): Record<string, unknown> {
  if (!s) return { text: '', mode: null, template: null, plain_text: null, summary_language: null };
  const out: Record<string, unknown> = {
    text: s.text,
    mode: s.mode,
    template: s.template,
    plain_text: s.plainText,
    summary_language: s.language,
  };
  if (s.mode === 'custom') out.prompt_snapshot = s.promptSnapshot ?? null;
  if (s.fallbackLevel) {
    out.fallback_level = s.fallbackLevel;
    out.dropped_segments = s.fallbackLevel === 3 ? (s.droppedSegments ?? []) : [];
  }
  return out;
}

export function registerTaskSseRoutes(app: HttpApp, deps: TaskRouteDeps): void {
  const { tasks } = deps;
  const base = {
    onRequest: requireApiKey(deps.auth, 'header-or-query'),
    config: { errorVariant: 'sse' as const },
    ...documentedInput,
  };
  const op = { tags: ['sse'], security: API_KEY_OR_QUERY, params: TaskIdParams };

  app.get<IdParams>(
    '/api/v1/sse/history/transcribe/:taskId',
    {
      ...base,
      schema: {
        ...op,
        summary: 'History stream of a task: connected, init_metadata, init_sentence..., init_summary, init_done',
        description: 'Works for every recording type. Errors before the stream opens are JSON error responses; the stream then ends.',
        response: {
          200: sse('The transcript, then the stream ends.', {
            connected: Type.Object({ message: Type.String() }),
            init_metadata: Type.Object({
              task_id: Type.String(),
              title: Type.String(),
              created_at: Type.String(),
              type: Type.String(),
              has_speaker_diarization: Type.Boolean(),
              transcription_languages: Type.Array(Type.String()),
              translation_languages: Type.Array(Type.String()),
              summary_template: Type.Union([Type.String(), Type.Null()]),
              summary_language: Type.Union([Type.String(), Type.Null()]),
            }),
            init_sentence: Sentence,
            init_summary: SummaryPayload,
            init_done: Type.Object({ totalSentences: Type.Integer() }),
            error: errorObject(['internal_error']),
          }),
          ...errors(['recording_not_found'], { auth: true, variant: 'sse' }),
        },
      },
    },
    async (request, reply) => {
      const task = await tasks.owned(principalOf(request), request.params.taskId);
      const transcript = await tasks.store.getTranscript(task.taskId);
      const labels = transcript?.speakerLabels ?? {};
      const sse = openSse(request, reply);
      sse.send('connected', { message: 'connected' });
      sse.send('init_metadata', {
        task_id: task.taskId,
        title: task.title,
        created_at: task.createdAt,
        type: task.type,
        has_speaker_diarization: hasDiarization(task.recognitionMode),
        transcription_languages: task.transcriptionLanguages ?? [],
        translation_languages: task.translationLanguages ?? [],
        summary_template: transcript?.summary?.template ?? task.summaryTemplate ?? null,
        summary_language: transcript?.summary?.language ?? task.summaryLanguage ?? null,
      });
      let total = 0;
      try {
        for await (const page of tasks.store.allSentences(task.taskId)) {
          if (sse.closed) return;
          for (const s of page) {
            // Respect back-pressure: a slow client must not make us buffer a whole transcript.
            if (!sse.send('init_sentence', sentenceShape(s, labels))) await sse.drained();
            total++;
          }
        }
        sse.send('init_summary', summaryPayload(transcript?.summary ?? null));
        sse.send('init_done', { totalSentences: total });
      } catch (err) {
        request.log.error({ err, task_id: task.taskId }, 'history stream failed');
        const e = new AppError('internal_error');
        sse.send('error', {
          error_code: e.code,
          severity: e.severity,
          message: e.message,
          context: e.context,
          timestamp: new Date().toISOString(),
        });
      } finally {
        sse.close();
      }
    },
  );

  app.get<IdParams>(
    '/api/v1/sse/audio/:taskId',
    {
      ...base,
      schema: {
        ...op,
        summary: 'Task audio (M4A) for playback: 200 whole or 206 for one byte range',
        headers: Type.Object({ range: Type.Optional(Type.String({ description: 'bytes=<start>-<end>, one range' })) }),
        response: {
          200: binary(['audio/mp4'], 'The whole file (Accept-Ranges: bytes, Content-Length)'),
          206: binary(['audio/mp4'], 'One byte range (Content-Range)'),
          416: NoBody('Range not satisfiable (Content-Range: bytes */<size>)'),
          ...errors(['recording_not_found', 'recording_audio_not_ready'], { auth: true, variant: 'sse' }),
        },
      },
    },
    async (request, reply) => {
      const task = await tasks.owned(principalOf(request), request.params.taskId);
      const info = task.audioKey ? await deps.blobs.stat(task.audioKey) : null;
      if (!task.audioKey || !info) throw new AppError('recording_audio_not_ready', { details: { task_id: task.taskId } });
      const header = request.headers.range;
      const range = parseRange(typeof header === 'string' ? header : undefined, info.size);
      reply.header('Accept-Ranges', 'bytes').header('Cache-Control', 'private, no-cache');
      if (range.kind === 'unsatisfiable') {
        return reply.code(416).header('Content-Range', `bytes */${info.size}`).send();
      }
      reply.type('audio/mp4');
      if (range.kind === 'partial') {
        return reply
          .code(206)
          .header('Content-Range', `bytes ${range.start}-${range.end}/${info.size}`)
          .header('Content-Length', range.end - range.start + 1)
          .send(await deps.blobs.get(task.audioKey, { start: range.start, end: range.end }));
      }
      return reply
        .code(200)
        .header('Content-Length', info.size)
        .send(await deps.blobs.get(task.audioKey));
    },
  );
}
