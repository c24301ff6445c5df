// The OBS browser-source overlay, /b/{token}/overlay: the latest captions on a transparent
// page. URL options (query): lang (translation language, default the first), lines (sentences
// shown, 1-10, default 2), size (font size in px, 12-160, default 36), show (`both` source and
// translation, default; `translation` only; `source` only), announce (seconds the host's
// announcements stay at the top, 0-120, default 10; 0 hides them), contrast (`outline`, white
// text with a dark outline, default; `box`, on a dark box; `high`, white and yellow on black).
// The Display controls (shown while the pointer is over the page, as in OBS's Interact window)
// change size, contrast and lines; the choice is remembered in this browser and wins over the
// URL until "Use the link's settings". A password channel takes its password in the fragment
// (#password=...), which the browser never sends to the server.
import { Captions, fetchView, openStream, pageToken, ViewerError, verify } from '/web/captions.js';
import { bindDisplayControls, forgetDisplay, loadDisplay, saveDisplay } from '/web/display.js';

const token = pageToken();
const params = new URLSearchParams(location.search);
const hash = new URLSearchParams(location.hash.slice(1));
const clamp = (v, lo, hi, d) => {
  const n = Number.parseInt(v ?? '', 10);
  return Number.isFinite(n) ? Math.min(hi, Math.max(lo, n)) : d;
};
const CONTRASTS = ['outline', 'box', 'high'];
const fromLink = {
  lines: clamp(params.get('lines'), 1, 10, 2),
  size: clamp(params.get('size'), 12, 160, 36),
  contrast: CONTRASTS.includes(params.get('contrast')) ? params.get('contrast') : 'outline',
};
const SHOW = ['both', 'translation', 'source'].includes(params.get('show')) ? params.get('show') : 'both';
const ANNOUNCE_SECONDS = clamp(params.get('announce'), 0, 120, 10);

// ---- display settings ----
const DISPLAY_KEY = 'parley.overlay.display';
const SIZES = [24, 30, 36, 48, 64, 80, 96, 128];
const CHOICES = {
  // The link's own size is among the choices even when it is not a listed one.
  size: [...new Set([...SIZES, fromLink.size])].sort((a, b) => a - b).map((px) => [px, `${px} px`]),
  contrast: [
    ['outline', 'Outline'],
    ['box', 'Dark box'],
    ['high', 'High (on black)'],
  ],
  lines: Array.from({ length: 10 }, (_, i) => [i + 1, String(i + 1)]),
};
const allowedDisplay = { size: Array.from({ length: 149 }, (_, i) => i + 12), contrast: CONTRASTS, lines: CHOICES.lines.map(([v]) => v) };
let display = loadDisplay(DISPLAY_KEY, fromLink, allowedDisplay);

function applyDisplay() {
  document.body.style.setProperty('--size', `${display.size}px`);
  document.body.dataset.contrast = display.contrast;
}
const settingsForm = document.getElementById('settings');
const controls = bindDisplayControls(settingsForm, display, CHOICES, (next) => {
  display = next;
  controls.show(next);
  saveDisplay(DISPLAY_KEY, next);
  applyDisplay();
  render();
});
const toggle = document.getElementById('settings-toggle');
toggle.addEventListener('click', () => {
  settingsForm.hidden = !settingsForm.hidden;
  toggle.setAttribute('aria-expanded', String(!settingsForm.hidden));
});
document.getElementById('settings-reset').addEventListener('click', () => {
  forgetDisplay(DISPLAY_KEY);
  display = { ...fromLink };
  controls.show(display);
  applyDisplay();
  render();
});
applyDisplay();

const root = document.getElementById('lines');
const captions = new Captions(30);
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
  for (const parts of shown.slice(-display.lines))
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
