// Shared by the viewer page (/b/{token}) and the OBS overlay (/b/{token}/overlay): the
// viewer REST calls, the caption stream with its own reconnects, and the caption list.
// Only the public viewer interface is used (no API key). Display strings from the server
// (`message`, `estimated_wait`) are shown as text, never parsed: state comes from event names.

/** The broadcast token of this page: /b/{token} or /b/{token}/overlay. */
export function pageToken() {
  return decodeURIComponent(location.pathname.split('/')[2] ?? '');
}

/** An error answer of the viewer endpoints: its code, display message and Retry-After. */
export class ViewerError extends Error {
  constructor(status, code, message, retryAfter) {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

async function viewerFetch(path, init) {
  const res = await fetch(path, { credentials: 'omit', ...init });
  const body = await res.json().catch(() => null);
  if (res.ok) return body?.data ?? null;
  const err = body?.data ?? body ?? {};
  const retry = Number(res.headers.get('retry-after'));
  throw new ViewerError(res.status, err.error_code, err.message, Number.isFinite(retry) && retry > 0 ? retry : undefined);
}

/** GET /api/v1/viewer/broadcasts/{token}: the public view. */
export function fetchView(token) {
  return viewerFetch(`/api/v1/viewer/broadcasts/${encodeURIComponent(token)}`);
}

/** POST .../verify: {viewer_access_token, expires_at} (null token for public channels). */
export function verify(token, password) {
  return viewerFetch(`/api/v1/viewer/broadcasts/${encodeURIComponent(token)}/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ password }),
  });
}

/** A kept viewer token for this broadcast (sessionStorage: gone with the tab), unless expired. */
export function storedAccess(token) {
  try {
    const kept = JSON.parse(sessionStorage.getItem(`parley.viewer.${token}`) ?? 'null');
    if (kept && Date.parse(kept.expires_at) > Date.now() + 60_000) return kept.viewer_access_token;
  } catch {
    /* storage unavailable or garbled: ask again */
  }
  return null;
}

export function storeAccess(token, access) {
  try {
    if (access) sessionStorage.setItem(`parley.viewer.${token}`, JSON.stringify(access));
    else sessionStorage.removeItem(`parley.viewer.${token}`);
  } catch {
    /* private mode: the token lives only in this page */
  }
}

/** Messages that mean this viewer must stop retrying (the stream's connection errors). */
const FINAL_CODES = new Set(['broadcast_session_ended', 'broadcast_token_revoked', 'broadcast_session_not_found', 'validation_failed']);

/**
 * Opens the caption stream and keeps it open: EventSource reconnects by itself after a dropped
 * connection; when the server refuses one (EventSource gives up without saying why), the
 * refusal is read once with fetch and handled: ended, revoked or unknown stop; a broadcast
 * whose host has not started it yet (404 with details.reason `not_started`) is asked again
 * after its Retry-After; a stale viewer token asks for the password again; anything else (a
 * full queue, a restart) retries with backoff. `handlers.event(name, data)` gets every event;
 * `handlers.state(s, detail)` gets 'connecting', 'open', 'waiting' {seconds} (not on air yet),
 * 'retrying' {seconds}, 'password' {code}, 'stopped' {code, message}.
 */
export function openStream(token, options, handlers) {
  const q = new URLSearchParams();
  if (options.lang) q.set('lang', options.lang);
  if (options.tts) q.set('tts', 'true');
  if (options.accessToken) q.set('viewer_access_token', options.accessToken);
  const query = q.toString();
  const url = `/broadcast/${encodeURIComponent(token)}/text${query ? `?${query}` : ''}`;
  let es = null;
  let stopped = false;
  let failures = 0;
  let timer = null;

  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    es?.close();
  };
  const finish = (state, detail) => {
    stop();
    handlers.state(state, detail);
  };

  const EVENTS = [
    'connected',
    'queued',
    'admitted',
    'catch_up',
    'origin',
    'translation',
    'tts_ready',
    'paused',
    'resumed',
    'ended',
    'kicked',
    'speaker_renamed',
    'speaker_reassigned',
    'speakers_merged',
    'sentence_corrected',
    'recording_started',
    'max_viewers_changed',
    'host_disconnected',
    'host_reconnected',
    'standby',
    'phase_changed',
    'announcement',
  ];

  const connect = () => {
    if (stopped) return;
    handlers.state('connecting');
    es = new EventSource(url);
    es.onopen = () => {
      failures = 0;
      handlers.state('open');
    };
    for (const name of EVENTS) {
      es.addEventListener(name, (e) => {
        let data = {};
        try {
          data = JSON.parse(e.data);
        } catch {
          return;
        }
        handlers.event(name, data);
        // The server closes the stream after these: no reconnect (EventSource would).
        if (name === 'ended') finish('stopped', { code: 'ended', message: data.message });
        else if (name === 'kicked') finish('password', { code: 'kicked', message: data.message });
      });
    }
    // `error` is both the stream's own error event (with data) and EventSource's connection error.
    es.addEventListener('error', (e) => {
      if (typeof e.data === 'string' && e.data) {
        let data = {};
        try {
          data = JSON.parse(e.data);
        } catch {
          /* not JSON: treated as a connection error below */
        }
        if (data.error_code) {
          handlers.event('error', data);
          if (data.severity === 'fatal' || data.error_code === 'broadcast_token_revoked')
            finish('stopped', { code: data.error_code, message: data.message });
          return;
        }
      }
      if (stopped) return;
      if (es.readyState === EventSource.CONNECTING) {
        handlers.state('retrying', { seconds: 3 });
        return;
      }
      es.close();
      void diagnose();
    });
  };

  // The connection was refused: read the refusal once (a stream that opens is closed at once).
  const diagnose = async () => {
    let code;
    let message;
    let reason;
    let retryAfter = 0;
    try {
      const ctl = new AbortController();
      const res = await fetch(url, { signal: ctl.signal, credentials: 'omit' });
      if (res.headers.get('content-type')?.startsWith('text/event-stream')) ctl.abort();
      else {
        const body = await res.json().catch(() => null);
        code = (body?.data ?? body)?.error_code;
        message = (body?.data ?? body)?.message;
        reason = (body?.data ?? body)?.details?.reason;
        retryAfter = Number(res.headers.get('retry-after')) || 0;
      }
    } catch {
      /* offline: retry below */
    }
    if (stopped) return;
    if (code === 'broadcast_password_incorrect') return finish('password', { code, message });
    if (code === 'broadcast_session_not_found' && reason === 'not_started') {
      // Not on air yet: ask again when the server says, spread so a waiting audience does not come back at once.
      const seconds = Math.max(2, retryAfter || 10) * (0.75 + Math.random() * 0.5);
      handlers.state('waiting', { seconds: Math.round(seconds), code });
      timer = setTimeout(connect, seconds * 1000);
      return;
    }
    if (FINAL_CODES.has(code)) return finish('stopped', { code, message });
    failures++;
    // A rate limit says when to come back (Retry-After); otherwise back off with jitter.
    const seconds = Math.max(retryAfter, Math.min(30, 2 ** Math.min(failures, 5)) * (0.75 + Math.random() * 0.5));
    handlers.state('retrying', { seconds: Math.round(seconds), code });
    timer = setTimeout(connect, seconds * 1000);
  };

  connect();
  return { stop, url };
}

/**
 * The captions by sentence id: the source text (interim until final), its translations by
 * language, the speaker. Late-joiner replays and reconnects send sentences again: an update
 * replaces, never duplicates. Keeps the latest `max` sentences.
 */
export class Captions {
  constructor(max = 200) {
    this.max = max;
    this.bySid = new Map();
  }

  clear() {
    this.bySid.clear();
  }

  entry(sid) {
    let e = this.bySid.get(sid);
    if (!e) {
      e = { sid, text: '', final: false, start: '', speakerId: null, speaker: null, translations: new Map() };
      this.bySid.set(sid, e);
      if (this.bySid.size > this.max) this.bySid.delete(this.bySid.keys().next().value);
    }
    return e;
  }

  /** Applies a caption or speaker event; returns whether anything shown changed. */
  apply(name, d) {
    if (name === 'origin') {
      // A final of empty text withdraws a sentence that came to nothing.
      if (d.is_final !== false && !d.text) return this.bySid.delete(d.sid);
      const e = this.entry(d.sid);
      // A late interim never overwrites the final text.
      if (e.final && d.is_final === false) return false;
      e.text = d.text ?? '';
      e.final = d.is_final !== false;
      e.start = d.start_time ?? e.start;
      e.speakerId = d.speaker_id ?? e.speakerId;
      e.speaker = d.speaker_label ?? e.speaker;
      return true;
    }
    if (name === 'translation') {
      const e = this.entry(d.sid);
      const old = e.translations.get(d.language);
      if (old?.final && d.is_final === false) return false;
      e.translations.set(d.language, { text: d.text ?? '', final: d.is_final !== false });
      if (d.speaker_label) e.speaker = d.speaker_label;
      return true;
    }
    if (name === 'speaker_renamed') {
      for (const e of this.bySid.values()) if (e.speakerId === d.speaker_id || d.affected_sids?.includes(e.sid)) e.speaker = d.new_label;
      return true;
    }
    if (name === 'speaker_reassigned') {
      const e = this.bySid.get(d.sid);
      if (!e) return false;
      e.speakerId = d.new_speaker_id;
      e.speaker = d.new_speaker_label;
      return true;
    }
    if (name === 'sentence_corrected') {
      // A corrected sentence (or a correction undone) replaces its text and translations in place.
      const e = this.bySid.get(d.sid);
      if (!e) return false;
      e.text = d.text ?? e.text;
      e.final = true;
      e.revision = d.revision;
      for (const [language, text] of Object.entries(d.translations ?? {})) e.translations.set(language, { text, final: true });
      for (const language of Object.keys(d.translation_errors ?? {})) e.translations.delete(language);
      return true;
    }
    if (name === 'speakers_merged') {
      for (const e of this.bySid.values())
        if (e.speakerId === d.source_speaker_id || d.affected_sids?.includes(e.sid)) {
          e.speakerId = d.target_speaker_id;
          e.speaker = d.target_speaker_label;
        }
      return true;
    }
    return false;
  }

  /** Sentences in order (sid order: replays and reconnects can deliver out of order). */
  list() {
    return [...this.bySid.values()].sort((a, b) => a.sid - b.sid);
  }
}

/** A language's name in the page's language ("es" -> "Spanish"), the code when unknown. */
export function languageName(code) {
  try {
    const names = new Intl.DisplayNames([navigator.language || 'en'], { type: 'language' });
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}
