// Parley's web client: live captions from the microphone, file imports with progress, and the
// recording list with downloads. Plain browser APIs against the public interface (no build step).

const $ = (id) => document.getElementById(id);
const state = { key: localStorage.getItem('parley.key') ?? '', ws: null, recorder: null, stream: null };

function showError(message) {
  $('error').textContent = message ?? '';
}

async function call(method, path, body) {
  const headers = { 'X-API-Key': state.key };
  if (body !== undefined && !(body instanceof FormData)) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    body: body instanceof FormData ? body : body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new Error(json?.data?.message ?? `${res.status} ${res.statusText}`);
  return json;
}

const languages = (text) =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

// --- Key and plan -------------------------------------------------------------------------

async function useKey() {
  showError('');
  try {
    const plan = (await call('GET', '/api/v1/me/plan')).data;
    $('plan').textContent =
      plan.mode === 'credit' ? `credit: ${plan.available_credit} points` : `unlimited${plan.plan ? ` (${plan.plan.name})` : ''}`;
    await refreshTasks();
  } catch (err) {
    $('plan').textContent = '';
    showError(err.message);
  }
}

$('key').value = state.key;
$('key-form').addEventListener('submit', (e) => {
  e.preventDefault();
  state.key = $('key').value.trim();
  localStorage.setItem('parley.key', state.key);
  void useKey();
});

// --- Live captions --------------------------------------------------------------------------

function captionItem(sid) {
  let li = document.querySelector(`#captions li[data-sid="${sid}"]`);
  if (!li) {
    li = document.createElement('li');
    li.dataset.sid = String(sid);
    li.append(document.createElement('span'));
    $('captions').append(li);
  }
  return li;
}

function onLiveMessage(message) {
  const { type, data } = message;
  if (type === 'error') {
    showError(`${data.error_code}: ${data.message}`);
    return;
  }
  if (type !== 'voice-translation') return;
  switch (data.action) {
    case 'session_started':
      $('live-status').textContent = 'listening';
      void startMicrophone();
      break;
    case 'result':
      if (data.origin.is_final) {
        captionItem(data.origin.sid).firstChild.textContent = data.origin.text;
        $('interim').textContent = '';
      } else $('interim').textContent = data.origin.text;
      break;
    case 'translation': {
      const li = captionItem(data.sid);
      let t = li.querySelector(`.translation[lang="${data.language}"]`);
      if (!t) {
        t = document.createElement('span');
        t.className = 'translation';
        t.lang = data.language;
        li.append(t);
      }
      t.textContent = data.text;
      break;
    }
    case 'status':
      $('live-status').textContent = data.status;
      break;
    case 'task_complete':
      $('live-status').textContent = 'saved';
      state.ws?.close();
      void refreshTasks();
      break;
  }
}

async function startMicrophone() {
  try {
    state.stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    state.recorder = new MediaRecorder(state.stream, { mimeType: 'audio/webm;codecs=opus' });
    // MediaRecorder chunks go out as binary frames (the documented extension of the audio action).
    state.recorder.addEventListener('dataavailable', (e) => {
      if (e.data.size > 0 && state.ws?.readyState === WebSocket.OPEN) state.ws.send(e.data);
    });
    state.recorder.start(250);
    $('live-stop').disabled = false;
  } catch (err) {
    showError(`Microphone: ${err.message}`);
    stopLive();
  }
}

function stopLive() {
  state.recorder?.state === 'recording' && state.recorder.stop();
  for (const track of state.stream?.getTracks() ?? []) track.stop();
  if (state.ws?.readyState === WebSocket.OPEN) {
    // Let the last chunk leave before the stop.
    setTimeout(() => state.ws?.send(JSON.stringify({ type: 'voice-translation', data: { action: 'stop' } })), 300);
  }
  $('live-stop').disabled = true;
  $('live-start').disabled = false;
}

$('live-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  showError('');
  $('captions').replaceChildren();
  try {
    const { ticket } = (await call('POST', '/api/v1/auth/ticket')).data;
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const ws = new WebSocket(`${scheme}://${location.host}/ws`, [`ticket.${ticket}`]);
    state.ws = ws;
    $('live-start').disabled = true;
    ws.addEventListener('message', (m) => onLiveMessage(JSON.parse(m.data)));
    ws.addEventListener('close', () => {
      $('live-start').disabled = false;
      $('live-stop').disabled = true;
    });
    ws.addEventListener('open', () => {
      const targets = languages($('live-targets').value);
      ws.send(
        JSON.stringify({
          type: 'voice-translation',
          data: {
            action: 'start',
            type: 'transcribe',
            audio_format: 'webm',
            transcription_languages: [$('live-lang').value.trim()],
            translation_languages: targets,
            realtime_translation: targets.length > 0,
          },
        }),
      );
    });
  } catch (err) {
    showError(err.message);
    $('live-start').disabled = false;
  }
});
$('live-stop').addEventListener('click', stopLive);

// --- Imports --------------------------------------------------------------------------------

$('import-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  showError('');
  const form = new FormData();
  form.append('file', $('import-file').files[0]);
  form.append('transcription_languages', JSON.stringify([$('import-lang').value.trim()]));
  form.append('translation_languages', JSON.stringify(languages($('import-targets').value)));
  form.append('recognition_mode', 'single');
  const bar = $('import-progress');
  bar.hidden = false;
  bar.value = 0;
  $('import-status').textContent = 'uploading';
  try {
    const imp = (await call('POST', '/api/v1/imports', form)).data;
    // EventSource cannot send headers: SSE routes take the key as the api_key query parameter.
    const events = new EventSource(`/api/v1/sse/imports/${imp.import_id}/progress?api_key=${encodeURIComponent(state.key)}`);
    events.addEventListener('progress', (m) => {
      const p = JSON.parse(m.data);
      bar.value = p.progress;
      $('import-status').textContent = p.stage ?? p.status;
    });
    events.addEventListener('completed', () => {
      events.close();
      bar.value = 100;
      $('import-status').textContent = 'completed';
      void refreshTasks();
    });
    events.addEventListener('failed', (m) => {
      events.close();
      const f = JSON.parse(m.data);
      showError(`${f.error_code}: ${f.error_message}`);
      $('import-status').textContent = 'failed';
    });
  } catch (err) {
    showError(err.message);
    $('import-status').textContent = '';
  }
});

// --- Recordings -----------------------------------------------------------------------------

async function download(path, name) {
  try {
    const res = await fetch(path, { headers: { 'X-API-Key': state.key } });
    if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
    const url = URL.createObjectURL(await res.blob());
    const a = Object.assign(document.createElement('a'), { href: url, download: name });
    a.click();
    URL.revokeObjectURL(url);
  } catch (err) {
    showError(err.message);
  }
}

async function refreshTasks() {
  if (!state.key) return;
  const tasks = (await call('GET', '/api/v1/tasks?status=all')).data.tasks;
  $('task-rows').replaceChildren(
    ...tasks.map((t) => {
      const tr = document.createElement('tr');
      for (const text of [t.title, t.type_source, t.duration_formatted, t.processing_status, new Date(t.created_at).toLocaleString()]) {
        const td = document.createElement('td');
        td.textContent = text;
        tr.append(td);
      }
      const links = document.createElement('td');
      if (t.processing_status === 'completed') {
        for (const format of ['txt', 'srt', 'vtt', 'csv']) {
          const a = Object.assign(document.createElement('a'), { href: '#', textContent: format });
          a.addEventListener('click', (e) => {
            e.preventDefault();
            void download(`/api/v1/tasks/${t.task_id}/transcript/export?format=${format}`, `${t.title}.${format}`);
          });
          links.append(a);
        }
        const audio = Object.assign(document.createElement('a'), { href: '#', textContent: 'm4a' });
        audio.addEventListener('click', (e) => {
          e.preventDefault();
          void download(`/api/v1/tasks/${t.task_id}/audio/export?format=m4a`, `${t.title}.m4a`);
        });
        links.append(audio);
      }
      tr.append(links);
      return tr;
    }),
  );
}

$('tasks-refresh').addEventListener('click', () => void refreshTasks().catch((err) => showError(err.message)));
if (state.key) void useKey();
