// The OBS browser-source overlay, /b/{token}/overlay: the latest captions on a transparent
// page. URL options (query): lang (translation language, default the first), lines (sentences
// shown, 1-10, default 2), size (font size in px, 12-160, default 36), show (`both` source and
// translation, default; `translation` only; `source` only), announce (seconds the host's
// announcements stay at the top, 0-120, default 10; 0 hides them). A password channel takes its
// password in the fragment (#password=...), which the browser never sends to the server.
import { Captions, fetchView, openStream, pageToken, ViewerError, verify } from '/web/captions.js';

const token = pageToken();
const params = new URLSearchParams(location.search);
const hash = new URLSearchParams(location.hash.slice(1));
const clamp = (v, lo, hi, d) => {
  const n = Number.parseInt(v ?? '', 10);
  return Number.isFinite(n) ? Math.min(hi, Math.max(lo, n)) : d;
};
const LINES = clamp(params.get('lines'), 1, 10, 2);
const SIZE = clamp(params.get('size'), 12, 160, 36);
const SHOW = ['both', 'translation', 'source'].includes(params.get('show')) ? params.get('show') : 'both';
const ANNOUNCE_SECONDS = clamp(params.get('announce'), 0, 120, 10);
document.body.style.setProperty('--size', `${SIZE}px`);

const root = document.getElementById('lines');
const captions = new Captions(LINES + 20);
let lang = '';
let stream = null;

function notice(text) {
  const p = document.createElement('p');
  p.className = 'line notice';
  p.textContent = text;
  root.replaceChildren(p);
}

// An announcement in the overlay's language (its translation when the host's event has one;
// the source text when only the source is shown), replaced by the next, gone after a while.
const announcement = document.getElementById('announcement');
let announcementTimer = null;
function announce(d) {
  if (ANNOUNCE_SECONDS === 0) return;
  const text = (SHOW !== 'source' && lang && d.translations?.[lang]) || d.message || '';
  if (!text) return;
  announcement.textContent = text;
  if (SHOW !== 'source' && lang && d.translations?.[lang]) announcement.lang = lang;
  else announcement.removeAttribute('lang');
  announcement.hidden = false;
  clearTimeout(announcementTimer);
  announcementTimer = setTimeout(() => {
    announcement.hidden = true;
  }, ANNOUNCE_SECONDS * 1000);
}

function render() {
  const shown = [];
  for (const e of captions.list()) {
    const t = lang ? e.translations.get(lang) : null;
    const parts = [];
    if (SHOW !== 'translation' && e.text) parts.push(['source', e.text, e.final]);
    if (SHOW !== 'source' && t?.text) parts.push(['translation', t.text, t.final]);
    if (SHOW === 'translation' && !t?.text) continue;
    if (parts.length) shown.push(parts);
  }
  const nodes = [];
  for (const parts of shown.slice(-LINES))
    for (const [kind, text, final] of parts) {
      const p = document.createElement('p');
      p.className = `line ${kind}${final ? '' : ' interim'}`;
      if (kind === 'translation') p.lang = lang;
      p.textContent = text;
      nodes.push(p);
    }
  root.replaceChildren(...nodes);
}

async function start() {
  let view;
  try {
    view = await fetchView(token);
  } catch (e) {
    if (e instanceof ViewerError && (e.code === 'broadcast_token_invalid' || e.code === 'broadcast_token_revoked'))
      return notice(e.code === 'broadcast_token_revoked' ? 'Broadcast withdrawn.' : 'Broadcast link not valid.');
    setTimeout(start, (e instanceof ViewerError && e.retryAfter ? e.retryAfter : 5) * 1000);
    return;
  }
  const available = view.translation_languages ?? [];
  const wanted = params.get('lang');
  lang = wanted && available.includes(wanted) ? wanted : SHOW === 'source' ? '' : (available[0] ?? '');
  let access = null;
  if (view.requires_password) {
    try {
      access = (await verify(token, hash.get('password') ?? '')).viewer_access_token;
    } catch (e) {
      if (e instanceof ViewerError && e.code === 'too_many_requests') {
        setTimeout(start, (e.retryAfter ?? 60) * 1000);
        return;
      }
      return notice('Password needed: add #password=... to the overlay URL.');
    }
  }
  stream?.stop();
  stream = openStream(
    token,
    { lang, accessToken: access },
    {
      event(name, d) {
        if (name === 'recording_started') {
          captions.clear();
          render();
        } else if (name === 'announcement') announce(d);
        else if (captions.apply(name, d)) render();
      },
      state(state, detail = {}) {
        // A stale token (a new password): verify again with the URL's password.
        if (state === 'password') setTimeout(start, 2000);
        else if (state === 'stopped') {
          if (detail.code === 'ended' || detail.code === 'broadcast_session_ended') {
            root.replaceChildren();
            announcement.hidden = true;
          } else notice('Captions unavailable.');
        }
      },
    },
  );
}

void start();
