/**
 * ParleyClient: every operation of the REST and SSE interface as a typed method, grouped as
 * the docs group them, plus the live WebSocket session (live.ts). Browser-safe: it uses fetch
 * and a WebSocket constructor (globalThis.WebSocket unless one is passed in). Node-only helpers
 * (files, ffmpeg, the `ws` package) are in node.ts.
 *
 * Return values: a body that is only `{data}` comes back as its `data`; bodies with more
 * (`{data, meta}`, `{message, data}`) come back whole. Errors throw ParleyError.
 */
import type { Operations } from './api-types.js';
import { ParleyError } from './errors.js';
import { type CallInput, type OperationKey, type Success, Transport, type TransportOptions } from './http.js';
import type { Glossary, ImportInput, SummaryInput, SummaryTranslateInput, TtsStreamInput } from './inputs.js';
import { LiveApi, type WebSocketConstructor } from './live.js';

/** `{data}` alone unwraps to its data; anything else stays whole. */
export type Unwrap<B> = B extends { data: infer D } ? (Exclude<keyof B, 'data'> extends never ? D : B) : B;
type Q<K extends OperationKey> = Operations[K]['query'];
type B<K extends OperationKey> = Operations[K]['body'];

export interface ClientOptions extends TransportOptions {
  /** WebSocket constructor for live sessions (default globalThis.WebSocket; in Node 20 pass `ws`, or use node.ts). */
  WebSocket?: WebSocketConstructor;
}

export class ParleyClient {
  readonly transport: Transport;
  readonly live: LiveApi;

  constructor(options: ClientOptions) {
    this.transport = new Transport(options);
    this.live = new LiveApi(this, options.WebSocket);
  }

  /** The API key used from now on (a console signs in with it). */
  setApiKey(apiKey: string | undefined): void {
    this.transport.apiKey = apiKey;
  }

  /** Any operation by its "METHOD /path" key, JSON body as sent (escape hatch; methods below are easier). */
  request<K extends OperationKey>(op: K, input: CallInput = {}): Promise<Success<K>> {
    return this.transport.json(op, input);
  }

  private async data<K extends OperationKey>(op: K, input: CallInput = {}): Promise<Unwrap<Success<K>>> {
    const body = (await this.transport.json(op, input)) as Record<string, unknown> | null;
    if (body && typeof body === 'object' && 'data' in body && Object.keys(body).length === 1) return body.data as Unwrap<Success<K>>;
    return body as Unwrap<Success<K>>;
  }

  // ---- version and authentication ----
  /** {base_url}/api/v1/version (no key). */
  version() {
    return this.data('GET /api/v1/version', { anonymous: true });
  }
  /** {realtime_url}/version (no key). */
  realtimeVersion() {
    return this.data('GET /version', { anonymous: true });
  }
  /** A WebSocket ticket (32 characters, 60 seconds, single use). `live.start` gets one for you. */
  ticket() {
    return this.data('POST /api/v1/auth/ticket');
  }

  // ---- account ----
  readonly me = {
    key: () => this.data('GET /api/v1/me/key'),
    plan: () => this.data('GET /api/v1/me/plan'),
    creditLots: () => this.data('GET /api/v1/me/credit-lots'),
    /** `{data: records newest first, meta}`. */
    usage: (query: Q<'GET /api/v1/me/usage'> = {}) => this.data('GET /api/v1/me/usage', { query }),
  };

  // ---- summary templates (errors here come as {errorCode, message}; ParleyError reads both) ----
  readonly summaryTemplates = {
    list: (query: Q<'GET /api/v1/summary-templates'> = {}) => this.data('GET /api/v1/summary-templates', { query }),
    get: (slug: string) => this.data('GET /api/v1/summary-templates/{slug}', { path: { slug } }),
  };

  // ---- tasks ----
  readonly tasks = {
    /** Pinned first, then newest. `task_ids` narrows to those ids (status still applies). */
    list: async (query: { status?: Q<'GET /api/v1/tasks'>['status']; task_ids?: string[] } = {}) =>
      (await this.data('GET /api/v1/tasks', { query: { status: query.status, 'task_ids[]': query.task_ids } })).tasks,
    get: (taskId: string) => this.data('GET /api/v1/tasks/{taskId}', { path: { taskId } }),
    /** `{message}`. */
    delete: (taskId: string) => this.data('DELETE /api/v1/tasks/{taskId}', { path: { taskId } }),
    pin: (taskId: string, is_pinned: boolean) =>
      this.data('PUT /api/v1/tasks/{taskId}/pin', { path: { taskId }, body: { is_pinned } satisfies B<'PUT /api/v1/tasks/{taskId}/pin'> }),
    markRead: (taskId: string) => this.data('PUT /api/v1/tasks/{taskId}/read', { path: { taskId } }),
    rename: (taskId: string, name: string) =>
      this.data('PATCH /api/v1/tasks/{taskId}/name', { path: { taskId }, body: { name } satisfies B<'PATCH /api/v1/tasks/{taskId}/name'> }),
    forceFail: (taskId: string) => this.data('POST /api/v1/tasks/{taskId}/force-fail', { path: { taskId } }),
    retry: (taskId: string) => this.data('POST /api/v1/tasks/{taskId}/retry', { path: { taskId } }),
    pinMany: (task_ids: string[], is_pinned: boolean) => this.data('PUT /api/v1/tasks/batch/pin', { body: { task_ids, is_pinned } }),
    deleteMany: (task_ids: string[]) => this.data('DELETE /api/v1/tasks/batch', { body: { task_ids } }),
    /** The transcript as a file (txt, srt, sbv, vtt, csv). */
    exportTranscript: (taskId: string, query: Q<'GET /api/v1/tasks/{taskId}/transcript/export'> = {}) =>
      this.transport.blob('GET /api/v1/tasks/{taskId}/transcript/export', { path: { taskId }, query }),
    /** The recording's audio as a file. */
    exportAudio: (taskId: string, query: Q<'GET /api/v1/tasks/{taskId}/audio/export'> = {}) =>
      this.transport.blob('GET /api/v1/tasks/{taskId}/audio/export', { path: { taskId }, query }),
    /** The playable audio (M4A); `range` e.g. "bytes=0-1023" answers 206. The Response is returned for its headers. */
    audio: (taskId: string, range?: string) =>
      this.transport.send('GET /api/v1/sse/audio/{taskId}', { path: { taskId }, headers: range ? { Range: range } : {} }),
    /** A URL a browser <audio> element can play (the key goes in the query: it is visible in the URL). */
    audioUrl: (taskId: string) =>
      this.transport.url('GET /api/v1/sse/audio/{taskId}', { path: { taskId }, query: { api_key: this.transport.apiKey } }),
    /** SSE: connected, init_metadata, init_sentence..., init_summary?, init_done. */
    history: (taskId: string) => this.transport.stream('GET /api/v1/sse/history/transcribe/{taskId}', { path: { taskId } }),
    renameSpeaker: (taskId: string, body: B<'PATCH /api/v1/tasks/{taskId}/speakers/rename'>) =>
      this.data('PATCH /api/v1/tasks/{taskId}/speakers/rename', { path: { taskId }, body }),
    reassignSpeaker: (taskId: string, body: B<'PATCH /api/v1/tasks/{taskId}/speakers/reassign'>) =>
      this.data('PATCH /api/v1/tasks/{taskId}/speakers/reassign', { path: { taskId }, body }),
    mergeSpeakers: (taskId: string, body: B<'PATCH /api/v1/tasks/{taskId}/speakers/merge'>) =>
      this.data('PATCH /api/v1/tasks/{taskId}/speakers/merge', { path: { taskId }, body }),
    /** Corrections (extension, docs/corrections.md): new text, retranslated, as the sentence's next revision. */
    correctSentence: (taskId: string, sid: number, body: B<'PATCH /api/v1/tasks/{taskId}/sentences/{sid}'>) =>
      this.data('PATCH /api/v1/tasks/{taskId}/sentences/{sid}', { path: { taskId, sid: String(sid) }, body }),
    /** Back to the text and translations the latest correction replaced. */
    undoCorrection: (taskId: string, sid: number, body: B<'POST /api/v1/tasks/{taskId}/sentences/{sid}/undo'> = {}) =>
      this.data('POST /api/v1/tasks/{taskId}/sentences/{sid}/undo', { path: { taskId, sid: String(sid) }, body }),
    sentenceRevisions: (taskId: string, sid: number) =>
      this.data('GET /api/v1/tasks/{taskId}/sentences/{sid}/revisions', { path: { taskId, sid: String(sid) } }),
  };

  // ---- search (Parley extension, docs/search.md) ----
  /** `{data: hits best first, meta}`: titles, transcripts, translations, summaries, speaker names. */
  search(query: Q<'GET /api/v1/search'>) {
    return this.data('GET /api/v1/search', { query });
  }

  // ---- imports ----
  readonly imports = {
    /**
     * The pre-check; `plan` (extension: translation languages, recognition mode, summary)
     * makes the answer's `estimate` price the whole import.
     */
    checkQuota: (duration_ms: number, plan: Omit<B<'POST /api/v1/imports/check-quota'>, 'duration_ms'> = {}) =>
      this.data('POST /api/v1/imports/check-quota', { body: { duration_ms, ...plan } }),
    /** Uploads a file (202): the import, status pending. Follow it with `progress` or `waitFor`. */
    create: (input: ImportInput) => this.data('POST /api/v1/imports', { body: importForm(input) }),
    get: (importId: string) => this.data('GET /api/v1/imports/{importId}', { path: { importId } }),
    /** `{data, meta}`, newest first. */
    list: (query: Q<'GET /api/v1/imports'> = {}) => this.data('GET /api/v1/imports', { query }),
    /** SSE: progress..., then completed or failed. */
    progress: (importId: string) => this.transport.stream('GET /api/v1/sse/imports/{importId}/progress', { path: { importId } }),
    /**
     * Follows the progress stream to the end: the `completed` payload (with task_id), or a
     * ParleyError with the import's error_code when it failed.
     */
    waitFor: async (
      importId: string,
      onProgress?: (p: Operations['GET /api/v1/sse/imports/{importId}/progress']['events']['progress']) => void,
    ) => {
      const stream = await this.imports.progress(importId);
      for await (const e of stream) {
        if (e.event === 'progress') onProgress?.(e.data);
        else if (e.event === 'completed') return e.data;
        else if (e.event === 'failed') {
          throw new ParleyError({ code: e.data.error_code, message: e.data.error_message, body: e.data });
        }
      }
      throw new ParleyError({ code: 'stream_ended', message: 'the progress stream ended before the import finished' });
    },
  };

  // ---- floating subtitles ----
  readonly subtitles = {
    /** Owner: a feed token (48 characters, 900 s sliding) for `stream`. */
    feedToken: (taskId: string) => this.data('POST /api/v1/auth/tasks/{taskId}/subtitle-feed-token', { path: { taskId } }),
    /** Owner: a share secret for an audience (re-enabling invalidates old links). */
    share: (taskId: string) => this.data('POST /api/v1/auth/tasks/{taskId}/subtitle-share', { path: { taskId } }),
    revokeShare: (taskId: string) => this.data('DELETE /api/v1/auth/tasks/{taskId}/subtitle-share', { path: { taskId } }),
    /** Audience (no key): a read-only feed token from a share secret. */
    audienceToken: (taskId: string, share_secret: string) =>
      this.data('POST /api/v1/public/tasks/{taskId}/subtitle-feed-token', { path: { taskId }, body: { share_secret }, anonymous: true }),
    /** SSE on {realtime_url}: the live transcript of a recording in progress. */
    stream: (taskId: string, feed_token: string) =>
      this.transport.stream('GET /tasks/{taskId}/subtitle', { path: { taskId }, query: { feed_token }, anonymous: true }),
  };

  // ---- broadcasts (host) and viewers ----
  readonly broadcasts = {
    create: (body: B<'POST /api/v1/broadcasts'>) => this.data('POST /api/v1/broadcasts', { body }),
    list: (query: Q<'GET /api/v1/broadcasts'> = {}) => this.data('GET /api/v1/broadcasts', { query }),
    get: (id: string) => this.data('GET /api/v1/broadcasts/{id}', { path: { id } }),
    update: (id: string, body: B<'PATCH /api/v1/broadcasts/{id}'>) => this.data('PATCH /api/v1/broadcasts/{id}', { path: { id }, body }),
    revoke: (id: string) => this.data('POST /api/v1/broadcasts/{id}/revoke', { path: { id } }),
    /** Caption sinks (YouTube Live, Zoom) with each one's delivery status. */
    captionSinks: (id: string) => this.data('GET /api/v1/broadcasts/{id}/caption-sinks', { path: { id } }),
    /** Replaces the caption sinks (up to 5; [] removes them). */
    setCaptionSinks: (id: string, caption_sinks: B<'PUT /api/v1/broadcasts/{id}/caption-sinks'>['caption_sinks']) =>
      this.data('PUT /api/v1/broadcasts/{id}/caption-sinks', { path: { id }, body: { caption_sinks } }),
  };

  /** Viewer side: no API key, the broadcast's 4-character token. */
  readonly viewer = {
    get: (token: string) => this.data('GET /api/v1/viewer/broadcasts/{token}', { path: { token }, anonymous: true }),
    verify: (token: string, password: string) =>
      this.data('POST /api/v1/viewer/broadcasts/{token}/verify', { path: { token }, body: { password }, anonymous: true }),
    /** SSE: the captions (connected or queued first). */
    stream: (token: string, query: Q<'GET /broadcast/{token}/text'> = {}) =>
      this.transport.stream('GET /broadcast/{token}/text', { path: { token }, query, anonymous: true }),
  };

  // ---- languages the engines serve ----
  /** What this server's engines serve: live and import speech, translation targets per source, TTS (GET /languages). */
  languages() {
    return this.data('GET /api/v1/languages');
  }

  // ---- text to speech ----
  readonly tts = {
    voices: (language: string) => this.data('GET /api/v1/tts/voices', { query: { language } }),
    /** An MP3 sample of a voice. */
    sample: (voiceName: string) => this.transport.blob('GET /api/v1/tts/voices/{voiceName}/sample', { path: { voiceName } }),
    /** SSE: connected, tts_audio per sentence (base64 MP3), tts_done. */
    stream: (taskId: string, query: TtsStreamInput) =>
      this.transport.stream('GET /api/v1/sse/tts/{taskId}', { path: { taskId }, query: { ...query } }),
  };

  // ---- retranslation and summaries (SSE, billed) ----
  readonly retranslate = {
    /** SSE: translation {sid, text, is_final}..., done {totalUpdated, totalFailed}; saved into the transcript. */
    task: (taskId: string, targetLang: string) =>
      this.transport.stream('GET /api/v1/sse/retranslate/{taskId}', { path: { taskId }, query: { targetLang } }),
    /** SSE: one sentence (since v1.4.0). */
    sentence: (taskId: string, sid: number, targetLang: string) =>
      this.transport.stream('GET /api/v1/sse/recordings/{taskId}/entries/{sid}/retranslate', {
        path: { taskId, sid },
        query: { targetLang },
      }),
  };

  readonly summaries = {
    /** SSE GET: a regenerated summary, not saved. */
    preview: (taskId: string, input: SummaryInput) =>
      this.transport.stream('GET /api/v1/sse/regenerate/summary/{taskId}', { path: { taskId }, query: { ...input } }),
    /** SSE POST: a regenerated summary, saved (revision + 1). */
    regenerate: (taskId: string, input: SummaryInput) =>
      this.transport.stream('POST /api/v1/sse/regenerate/summary/{taskId}', { path: { taskId }, body: input }),
    /** SSE: a summary of any text (since v1.9.1). */
    adhoc: (input: SummaryInput & { text: string }) => this.transport.stream('POST /api/v1/sse/summary', { body: input }),
    /** SSE: a text (a summary) translated (since v1.17.0). */
    translate: (input: SummaryTranslateInput) => this.transport.stream('POST /api/v1/sse/summary/translate', { body: input }),
    /** SSE: the task's summary translated. */
    retranslate: (taskId: string, targetLang: string) =>
      this.transport.stream('GET /api/v1/sse/retranslate/summary/{taskId}', { path: { taskId }, query: { targetLang } }),
  };

  // ---- glossary ----
  readonly glossary = {
    /** Checks a glossary (served by the real-time host, since v1.14.0). */
    validate: (glossary: Glossary) => this.data('POST /api/v1/glossary/validate', { body: glossary }),
  };
}

function importForm(input: ImportInput): FormData {
  const form = new FormData();
  form.append('file', input.file, input.filename ?? 'audio');
  form.append('transcription_languages', JSON.stringify(input.transcription_languages));
  if (input.translation_languages) form.append('translation_languages', JSON.stringify(input.translation_languages));
  form.append('recognition_mode', input.recognition_mode);
  for (const k of ['summary_template', 'summary_mode', 'summary_prompt', 'summary_prompt_slug', 'callback_url'] as const) {
    const v = input[k];
    if (v !== undefined) form.append(k, v);
  }
  for (const k of ['terminology', 'fuzzy_correction', 'translation_dict'] as const) {
    const v = input[k];
    if (v !== undefined) form.append(k, JSON.stringify(v));
  }
  return form;
}
