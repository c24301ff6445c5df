/**
 * The console's only door to the server: the typed client of src/client/ (REST, SSE read
 * with fetch so the key stays in a header, the live WebSocket with its ticket) on this
 * page's origin, with the signed-in key; and the shapes the screens use.
 */
import { ParleyClient } from '../../src/client/index.js';

export type { LiveEvent, LiveSession } from '../../src/client/index.js';
export { ParleyError } from '../../src/client/index.js';

/** The one client of the page ({base_url} and {realtime_url} are both this origin). */
export const parley = new ParleyClient({ baseUrl: location.origin });

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
  ) {
    super(message);
  }
}

let apiKey = '';
export const setKey = (key: string) => {
  apiKey = key;
  parley.setApiKey(key || undefined);
};

/** The error message a person reads: the server's display text with its code. */
function errorFrom(status: number, body: unknown): ApiError {
  const b = body as { data?: { error_code?: string; message?: string }; error?: string; errorCode?: string; message?: string } | null;
  const code = b?.data?.error_code ?? b?.errorCode ?? b?.error ?? null;
  const message = b?.data?.message ?? b?.message ?? (code ? code : `HTTP ${status}`);
  return new ApiError(message, status, code);
}

/** A JSON call; answers the body's `data` (or the whole body when it has none). */
export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { 'X-API-Key': apiKey };
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(path, { method, headers, body: payload });
  const json = (await res.json().catch(() => null)) as { data?: T } | null;
  if (!res.ok) throw errorFrom(res.status, json);
  return (json && 'data' in json ? json.data : json) as T;
}

export const get = <T>(path: string) => call<T>('GET', path);

export interface PageMeta {
  current_page: number;
  last_page: number;
  per_page: number;
  total: number;
}

/** A paged list (`{data: [...], meta}`): both parts. */
export async function getPage<T>(path: string): Promise<{ data: T[]; meta: PageMeta }> {
  const res = await fetch(path, { headers: { 'X-API-Key': apiKey } });
  const json = (await res.json().catch(() => null)) as { data: T[]; meta: PageMeta } | null;
  if (!res.ok || !json) throw errorFrom(res.status, json);
  return json;
}

/** A file from the server (exports, audio) as a Blob, with the name the server gave it. */
export async function download(path: string): Promise<{ blob: Blob; filename: string | null }> {
  const res = await fetch(path, { headers: { 'X-API-Key': apiKey } });
  if (!res.ok) throw errorFrom(res.status, await res.json().catch(() => null));
  const disposition = res.headers.get('content-disposition') ?? '';
  const m = /filename\*=UTF-8''([^;]+)|filename="?([^";]+)"?/i.exec(disposition);
  const filename = m ? decodeURIComponent(m[1] ?? m[2] ?? '') : null;
  return { blob: await res.blob(), filename };
}

export interface StreamHandle {
  close(): void;
  /** Settles when the stream ends (resolves) or fails to open (rejects). */
  done: Promise<void>;
}

/**
 * An SSE stream read with fetch (so the key goes in a header, not the URL, and POST streams
 * work too): calls onEvent(name, data) for each event until the server ends it or close().
 */
export function stream(
  path: string,
  onEvent: (event: string, data: unknown) => void,
  init: { method?: string; body?: unknown } = {},
): StreamHandle {
  const abort = new AbortController();
  const headers: Record<string, string> = { 'X-API-Key': apiKey, Accept: 'text/event-stream' };
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  const done = (async () => {
    const res = await fetch(path, {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: abort.signal,
    });
    if (!res.ok || !res.body) throw errorFrom(res.status, await res.json().catch(() => null));
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      buffer += value;
      let cut = buffer.indexOf('\n\n');
      while (cut >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let event = 'message';
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('event:')) event = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        }
        if (data.length > 0) {
          let parsed: unknown = data.join('\n');
          try {
            parsed = JSON.parse(parsed as string);
          } catch {
            // Not JSON: hand over the text.
          }
          onEvent(event, parsed);
        }
        cut = buffer.indexOf('\n\n');
      }
    }
  })().catch((err: unknown) => {
    if (abort.signal.aborted) return;
    throw err;
  });
  return { close: () => abort.abort(), done };
}

export interface LiveMessage {
  type: string;
  data: Record<string, unknown> & { action?: string };
}

/** Opens the live WebSocket with a fresh ticket (the ticket rides in the subprotocol). */
export async function openLiveSocket(): Promise<WebSocket> {
  const { ticket } = await call<{ ticket: string }>('POST', '/api/v1/auth/ticket');
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const ws = new WebSocket(`${scheme}://${location.host}/ws`, [`ticket.${ticket}`]);
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve(), { once: true });
    ws.addEventListener('error', () => reject(new ApiError('The live connection could not be opened.', 0, null)), { once: true });
  });
  return ws;
}

// --- Shapes the screens use (the interface's resources) -------------------------------------

export interface Task {
  task_id: string;
  title: string;
  type: string;
  type_source: string;
  duration_ms: number;
  duration_formatted: string;
  transcription_languages: string[] | null;
  translation_languages: string[] | null;
  created_at: string;
  processing_status: string;
  is_pinned: boolean;
  is_unread: boolean;
  summary_mode: string | null;
  summary_template: string | null;
  summary_language: string | null;
}

export interface TaskDetail extends Task {
  recognition_mode: string | null;
  has_audio: boolean;
}

export interface Sentence {
  sid: number;
  origin: string;
  translations: Record<string, string> | null;
  start_time: string;
  speaker_id: string;
  speaker_label?: string;
}

export interface ImportItem {
  import_id: string;
  status: string;
  stage: string | null;
  progress: number;
  message: string | null;
  original_filename: string;
  file_size: string;
  task_id: string | null;
  created_at: string;
  error_code: string | null;
  error_message: string | null;
}

export interface Plan {
  mode: string;
  plan: { name: string; expired_at: string | null } | null;
  available_credit?: number;
  features?: Array<{ slug: string; name: string; included: boolean }> | { all: boolean };
  oneoff_features?: Array<{ slug: string; name: string; included: boolean }>;
  limits?: Record<string, number | string | null>;
  expired_at?: string | null;
}

export interface UsageRecord {
  task_id: string | null;
  type: string;
  points: number;
  in_progress: boolean;
  refunded: boolean;
  refund_reason: string | null;
  occurred_at: string | null;
  ended_at: string | null;
}

export interface Broadcast {
  id: string;
  token: string;
  name: string | null;
  status: string;
  phase: string | null;
  is_live: boolean;
  access_type: string;
  transcription_languages: string[];
  translation_languages: string[];
  max_viewers: number;
  viewer_count: number;
  queue_count: number;
  peak_viewers: number;
  total_viewers: number;
  task_id: string | null;
  created_at: string;
}

export interface Template {
  slug: string;
  name: string;
  description: string | null;
  category: string;
}
