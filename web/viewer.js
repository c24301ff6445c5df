// The viewer page, /b/{token}: asks for the password when the broadcast has one, lets the
// viewer pick a caption language and the display (text size, contrast, how many captions
// show; remembered in this browser, web/display.js), shows captions (interim in italics, final plain) with their
// translation and speaker, queue position, standby, announcements and the end, and can speak
// the translation aloud (tts_ready audio, in order). A late joiner first sees what was said so
// far (the catch_up summary, collapsible). Reconnects by itself.
import { Captions, fetchView, languageName, openStream, pageToken, storeAccess, storedAccess, ViewerError, verify } from '/web/captions.js';
import { bindDisplayControls, keepLast, loadDisplay, saveDisplay } from '/web/display.js';

const $ = (id) => document.getElementById(id);
const token = pageToken();
const params = new URLSearchParams(location.search);
const captions = new Captions(200);
const items = new Map(); // sid -> <li>

let view = null;
let access = null;
let stream = null;
let lang = '';
let listening = false;
let ttsLanguages = [];
let phase = null;
let queued = false;

function status(text) {
  $('status').textContent = text;
}

function show(id, text) {
  const el = $(id);
  el.textContent = text ?? '';
  el.hidden = !text;
}

const ERRORS = {
  broadcast_token_invalid: 'This broadcast link is not valid.',
  broadcast_session_not_found: 'This broadcast link is not valid.',
  broadcast_token_revoked: 'This broadcast was withdrawn by its host.',
  broadcast_session_ended: 'This broadcast has ended.',
  validation_failed: 'This caption language is not offered.',
};

// ---- display: text size, contrast, captions shown; remembered in this browser ----

const DISPLAY_KEY = 'parley.viewer.display';
const DISPLAY_CHOICES = {
  size: [
    [100, 'Normal'],
    [125, 'Large'],
    [150, 'Larger'],
    [200, 'Very large'],
    [250, 'Huge'],
  ],
  contrast: [
    ['standard', 'Standard'],
    ['high', 'High (black on white)'],
    ['dark', 'Dark (white on black)'],
  ],
  lines: [
    [0, 'All'],
    [10, 'Last 10'],
    [5, 'Last 5'],
    [3, 'Last 3'],
    [1, 'Last one'],
  ],
};
const allowed = Object.fromEntries(Object.entries(DISPLAY_CHOICES).map(([k, v]) => [k, v.map(([value]) => value)]));
let display = loadDisplay(DISPLAY_KEY, { size: 100, contrast: 'standard', lines: 0 }, allowed);

function applyDisplay() {
  // The whole page scales with the text (rem units), so controls grow with it.
  document.documentElement.style.setProperty('--scale', String(display.size / 100));
  document.documentElement.dataset.contrast = display.contrast;
  keepLast($('captions'), display.lines);
}

const displayControls = bindDisplayControls($('display-form'), display, DISPLAY_CHOICES, (next) => {
  display = next;
  displayControls.show(next);
  saveDisplay(DISPLAY_KEY, next);
  applyDisplay();
});
applyDisplay();

// ---- start: the public view, then the password when needed, then the stream ----

async function start() {
  try {
    view = await fetchView(token);
  } catch (e) {
    if (e instanceof ViewerError && e.code === 'too_many_requests') {
      status(`Too many requests; trying again in ${e.retryAfter ?? 10} s.`);
      setTimeout(start, (e.retryAfter ?? 10) * 1000);
      return;
    }
    if (e instanceof ViewerError && ERRORS[e.code]) return stopped(ERRORS[e.code]);
    status('Cannot reach the broadcast; trying again…');
    setTimeout(start, 5000);
    return;
  }
  if (view.name) {
    $('title').textContent = view.name;
    document.title = `${view.name} – live captions`;
  }
  if (view.status === 'ended') return stopped(ERRORS.broadcast_session_ended);
  if (view.status === 'revoked') return stopped(ERRORS.broadcast_token_revoked);
  setupLanguages(view.translation_languages ?? []);
  ttsLanguages = view.tts_languages ?? [];
  if (view.requires_password) {
    access = storedAccess(token);
    if (!access) return askPassword();
  }
  connect();
}

function askPassword(message) {
  stream?.stop();
  stream = null;
  access = null;
  storeAccess(token, null);
  $('controls').hidden = true;
  $('password-form').hidden = false;
  $('password-error').textContent = message ?? '';
  status('Enter the password to watch.');
  $('password').focus();
}

$('password-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const button = $('password-form').querySelector('button');
  button.disabled = true;
  try {
    const result = await verify(token, $('password').value);
    access = result.viewer_access_token;
    storeAccess(token, access ? result : null);
    $('password-form').hidden = true;
    $('password').value = '';
    $('password-error').textContent = '';
    connect();
  } catch (e) {
    const code = e instanceof ViewerError ? e.code : null;
    $('password-error').textContent =
      code === 'broadcast_password_incorrect'
        ? 'Wrong password. Try again.'
        : code === 'too_many_requests'
          ? `Too many attempts. Try again in ${e.retryAfter ?? 60} seconds.`
          : code === 'validation_failed'
            ? 'The password has at most 12 characters.'
            : (ERRORS[code] ?? 'The password could not be checked. Try again.');
    $('password').select();
  } finally {
    button.disabled = false;
  }
});

// ---- language and listening ----

function setupLanguages(available) {
  const select = $('language');
  select.replaceChildren(new Option('Original only', ''));
  for (const code of available) select.append(new Option(`Original + ${languageName(code)}`, code));
  let kept = null;
  try {
    kept = localStorage.getItem('parley.viewer.lang');
  } catch {
    /* storage blocked: no remembered choice */
  }
  let wanted = params.get('lang') ?? kept ?? '';
  if (!params.has('lang') && kept === null) {
    // First visit: the translation in the browser's language, when there is one.
    const base = (navigator.language || '').split('-')[0];
    wanted = available.find((c) => c === navigator.language) ?? available.find((c) => c.split('-')[0] === base) ?? '';
  }
  lang = available.includes(wanted) ? wanted : '';
  select.value = lang;
}

$('language').addEventListener('change', () => {
  lang = $('language').value;
  try {
    localStorage.setItem('parley.viewer.lang', lang);
  } catch {
    /* not kept */
  }
  if (!ttsLanguages.includes(lang)) setListening(false);
  renderAll();
  connect();
});

let audio = null;
let playing = Promise.resolve();

function setListening(on) {
  const changed = listening !== on;
  listening = on;
  $('listen').setAttribute('aria-pressed', String(on));
  $('listen').textContent = on ? 'Listening' : 'Listen';
  if (!on) {
    // Anything queued is dropped: a new chain starts empty.
    audio?.close().catch(() => {});
    audio = null;
    playing = Promise.resolve();
  }
  return changed;
}

function updateListen() {
  $('listen').disabled = !(lang && ttsLanguages.includes(lang));
  if ($('listen').disabled) setListening(false);
}

$('listen').addEventListener('click', () => {
  const on = !listening;
  // The audio context starts inside the click, so the browser lets it play later audio.
  if (on) {
    audio = new AudioContext();
    void audio.resume();
  }
  setListening(on);
  connect();
});

/** Plays spoken translations one after another, in the order they arrived. */
function enqueueSpeech(d) {
  const ctx = audio;
  if (!ctx || !listening || d.language !== lang || typeof d.audio !== 'string') return;
  const bytes = Uint8Array.from(atob(d.audio), (c) => c.charCodeAt(0));
  const decoded = ctx.decodeAudioData(bytes.buffer).catch(() => null);
  playing = playing.then(async () => {
    const buffer = await decoded;
    if (!buffer || ctx !== audio) return;
    items.get(d.sid)?.classList.add('speaking');
    const src = ctx.createBufferSource();
    src.buffer = buffer;
    src.connect(ctx.destination);
    await new Promise((resolve) => {
      src.onended = resolve;
      src.start();
    });
    items.get(d.sid)?.classList.remove('speaking');
    // How many clips were played (read by the browser tests; harmless to anyone else).
    document.body.dataset.spoken = String(Number(document.body.dataset.spoken ?? 0) + 1);
  });
}

// ---- the stream ----

function connect() {
  stream?.stop();
  $('controls').hidden = false;
  updateListen();
  stream = openStream(token, { lang, tts: listening, accessToken: access }, { event: onEvent, state: onState });
}

function phaseText() {
  if (queued) return 'Waiting in line.';
  if (phase === 'standby') return 'Waiting for the broadcast to start.';
  if (phase === 'paused') return 'Paused.';
  return 'Live.';
}

function onState(state, detail = {}) {
  if (state === 'connecting') status('Connecting…');
  else if (state === 'open') status(phase ? phaseText() : 'Connected.');
  else if (state === 'waiting') {
    show('standby', 'The broadcast has not started yet.');
    status(`Waiting for the broadcast to start. Checking again in ${detail.seconds} s…`);
  } else if (state === 'retrying') status(retryText(detail));
  else if (state === 'password')
    askPassword(detail.code === 'kicked' ? 'The password changed. Enter the new one.' : 'Your access expired. Enter the password again.');
  else if (state === 'stopped')
    stopped(detail.code === 'ended' ? (detail.message ?? ERRORS.broadcast_session_ended) : (ERRORS[detail.code] ?? detail.message));
}

/** Why the stream is being tried again, by the refusal's code (a full broadcast, a rate limit, a lost connection). */
function retryText(detail) {
  if (detail.code === 'broadcast_capacity_exceeded')
    return `This broadcast is full and its waiting line too. Trying again in ${detail.seconds} s…`;
  if (detail.code === 'too_many_requests') return `Too many requests from your network. Trying again in ${detail.seconds} s…`;
  return `Connection lost. Reconnecting in ${detail.seconds} s…`;
}

function stopped(text) {
  stream?.stop();
  setListening(false);
  $('controls').hidden = true;
  $('password-form').hidden = true;
  show('queue', '');
  show('standby', '');
  show('ended', text);
  status(text);
}

function translated(d) {
  return (lang && d.translations?.[lang]) || d.message || '';
}

function onEvent(name, d) {
  switch (name) {
    case 'connected':
      queued = false;
      show('queue', '');
      phase = d.phase;
      ttsLanguages = Array.isArray(d.tts_languages) ? d.tts_languages : [];
      updateListen();
      status(phaseText());
      if (phase !== 'standby') show('standby', '');
      break;
    case 'queued':
      queued = true;
      show('queue', `You are number ${d.position} in line (${d.estimated_wait}). Captions start when a place frees up.`);
      status(phaseText());
      break;
    case 'admitted':
      queued = false;
      show('queue', '');
      status(phaseText());
      break;
    case 'standby':
      phase = 'standby';
      show('standby', translated(d) || 'The broadcast has not started yet.');
      status(phaseText());
      break;
    case 'phase_changed':
      phase = 'live';
      show('standby', '');
      status(phaseText());
      void refreshSpeech();
      break;
    case 'recording_started':
      captions.clear();
      renderAll();
      break;
    case 'paused':
      phase = 'paused';
      status(d.message || phaseText());
      break;
    case 'resumed':
      phase = 'live';
      status(d.message || phaseText());
      break;
    case 'host_reconnected':
      void refreshSpeech();
      status(d.message || phaseText());
      break;
    case 'host_disconnected':
      status(d.message || phaseText());
      break;
    case 'announcement':
      show('announcement', translated(d));
      break;
    case 'tts_ready':
      enqueueSpeech(d);
      break;
    case 'catch_up':
      showCatchUp(d);
      break;
    case 'error':
      // A sentence-level error (with sid) leaves the broadcast running: nothing to tell.
      if (d.sid === undefined || d.sid === null) status(d.message || 'An error occurred.');
      break;
    default:
      if (captions.apply(name, d)) {
        const e = name === 'origin' || name === 'translation' ? captions.bySid.get(d.sid) : undefined;
        // A withdrawn sentence (gone from the store) leaves the page with the rest redrawn.
        if (e) renderEntry(e);
        else renderAll();
      }
  }
}

/**
 * The languages viewers can listen to are known once the broadcast is live (the stream's
 * `connected` says so only to viewers who connect while it is live): asked again on going live.
 */
async function refreshSpeech() {
  try {
    const v = await fetchView(token);
    ttsLanguages = v.tts_languages ?? [];
    updateListen();
  } catch {
    /* keep what we had */
  }
}

// ---- rendering ----

/**
 * The catch-up summary above the captions: open the first time (a late joiner reads it), then
 * as the viewer left it; a newer one (a reconnect, another language) replaces the text. "- "
 * lines are a list, other lines paragraphs.
 */
function showCatchUp(d) {
  const box = $('catch-up');
  const first = box.hidden;
  $('catch-up-title').textContent = `So far (${d.covers_from}–${d.covers_to})`;
  const body = $('catch-up-text');
  body.lang = d.language || '';
  const nodes = [];
  let list = null;
  for (const line of String(d.text ?? '').split('\n')) {
    const item = /^\s*-\s+(.*)$/.exec(line);
    if (item) {
      list ??= document.createElement('ul');
      list.append(el('li', '', item[1]));
      continue;
    }
    if (list) nodes.push(list);
    list = null;
    if (line.trim()) nodes.push(el('p', '', line.trim()));
  }
  if (list) nodes.push(list);
  body.replaceChildren(...nodes);
  box.hidden = false;
  if (first) box.open = true;
}

function renderEntry(e) {
  if (!e) return;
  const list = $('captions');
  const nearBottom = window.innerHeight + window.scrollY >= document.body.scrollHeight - 80;
  let li = items.get(e.sid);
  if (!li) {
    li = document.createElement('li');
    items.set(e.sid, li);
    // Usually the newest: appended; an older sid (replay) goes before the first newer one.
    const after = [...items.keys()].filter((sid) => sid > e.sid).sort((a, b) => a - b)[0];
    const next = after !== undefined ? items.get(after) : null;
    list.insertBefore(li, next?.isConnected ? next : null);
  }
  const meta = [e.start, e.speaker].filter(Boolean).join(' · ');
  const nodes = [];
  if (meta) nodes.push(el('span', 'meta', meta));
  const source = el('p', e.final ? 'source' : 'source interim', e.text);
  nodes.push(source);
  const t = lang ? e.translations.get(lang) : null;
  if (t) {
    const p = el('p', t.final ? 'translation' : 'translation interim', t.text);
    p.lang = lang;
    nodes.push(p);
  }
  li.replaceChildren(...nodes);
  li.dataset.sid = String(e.sid);
  li.dataset.final = String(e.final);
  // Interim text changes every few hundred ms: screen readers hear the final only.
  li.setAttribute('aria-hidden', String(!e.final));
  // Dropped from the store (over the limit): dropped from the page.
  for (const [sid, node] of items)
    if (!captions.bySid.has(sid)) {
      node.remove();
      items.delete(sid);
    }
  keepLast(list, display.lines);
  if (nearBottom) window.scrollTo(0, document.body.scrollHeight);
}

function renderAll() {
  $('captions').replaceChildren();
  items.clear();
  for (const e of captions.list()) renderEntry(e);
}

function el(tag, cls, text) {
  const n = document.createElement(tag);
  n.className = cls;
  n.textContent = text;
  return n;
}

void start();
