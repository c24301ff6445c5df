/**
 * Imports: drop a file (or choose one), set every import option, upload; each import's
 * progress bar follows its progress SSE stream (progress..., then completed or failed).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { type ImportInput, type ImportItem, parley } from './api';
import { EstimateNote, QueuePlace, useEstimate } from './import-estimate';
import { offeredOr, parseCodes, speechOptions, translationOptions, useLanguages } from './languages';
import { Card, Check, ErrorNote, formatDate, LanguageChecks, StatusBadge, TextareaField, useAction, useLoad } from './ui';

export interface Options {
  transcription: string[];
  translation: string[];
  mode: 'single' | 'multi_speaker';
  summary: 'none' | 'builtin' | 'custom';
  template: string;
  prompt: string;
  promptSlug: string;
  terms: string;
  fuzzy: string;
  fuzzyCaseInsensitive: boolean;
  dictionary: string;
  dictionaryCaseSensitive: boolean;
  callbackUrl: string;
}

const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/** The import request from the options (the client writes the multipart form, the file first). */
function importInput(file: File, o: Options): ImportInput {
  const speech = o.transcription[0] ?? 'en-US';
  const input: ImportInput = {
    file,
    filename: file.name,
    transcription_languages: o.transcription,
    recognition_mode: o.mode,
  };
  if (o.translation.length) input.translation_languages = o.translation;
  if (o.summary === 'builtin') input.summary_template = o.template;
  if (o.summary === 'custom') {
    input.summary_mode = 'custom';
    input.summary_prompt = o.prompt;
    input.summary_prompt_slug = o.promptSlug;
  }
  // Terminology: one term a line, for the (first) speech language.
  if (o.terms.trim()) input.terminology = { [speech]: lines(o.terms).map((term) => ({ term })) };
  // Corrections: "right: wrong one, wrong two" a line.
  if (o.fuzzy.trim())
    input.fuzzy_correction = {
      [speech]: lines(o.fuzzy).map((l) => {
        const [correct, wrong = ''] = l.split(':');
        return {
          correct: (correct ?? '').trim(),
          incorrect: parseCodes(wrong.replaceAll(',', '\n')),
          case_insensitive: o.fuzzyCaseInsensitive,
        };
      }),
    };
  // Dictionary: "es: source = target" a line.
  if (o.dictionary.trim()) {
    const dict: NonNullable<ImportInput['translation_dict']> = {};
    for (const l of lines(o.dictionary)) {
      const m = /^([A-Za-z-]+)\s*:\s*(.+?)\s*=\s*(.+)$/.exec(l);
      if (!m) continue;
      const list = dict[m[1]!] ?? [];
      list.push({ source: m[2]!, target: m[3]!, case_sensitive: o.dictionaryCaseSensitive });
      dict[m[1]!] = list;
    }
    input.translation_dict = dict;
  }
  if (o.callbackUrl.trim()) input.callback_url = o.callbackUrl.trim();
  return input;
}

/** Duration of a local file from the browser's decoder (for the quota check and estimate), or null. */
function fileDuration(file: File): Promise<number | null> {
  return new Promise((resolve) => {
    const url = URL.createObjectURL(file);
    const a = new Audio();
    const done = (v: number | null) => {
      URL.revokeObjectURL(url);
      resolve(v);
    };
    a.preload = 'metadata';
    a.onloadedmetadata = () => done(Number.isFinite(a.duration) ? a.duration : null);
    a.onerror = () => done(null);
    a.src = url;
  });
}

function ImportProgress({ item, onEnd }: { item: ImportItem; onEnd: () => void }) {
  const [state, setState] = useState(item);
  const [error, setError] = useState<unknown>(null);
  const final = state.status === 'completed' || state.status === 'failed';
  useEffect(() => {
    if (item.status === 'completed' || item.status === 'failed') return;
    let closed = false;
    let close = () => {
      closed = true;
    };
    (async () => {
      const events = await parley.imports.progress(item.import_id);
      close = () => events.close();
      if (closed) return events.close();
      for await (const e of events) {
        if (e.event === 'progress') setState((p) => ({ ...p, ...e.data }));
        else if (e.event === 'completed') setState((p) => ({ ...p, ...e.data, progress: 100, status: 'completed' }));
        else if (e.event === 'failed') setState((p) => ({ ...p, ...e.data, status: 'failed' }));
      }
      onEnd();
    })().catch(setError);
    return () => close();
  }, [item.import_id]);
  const label = `${state.original_filename}: ${state.status}${state.stage ? ` (${state.stage})` : ''}`;
  return (
    <li class={`import ${state.status}`} data-import={state.import_id}>
      <div class="import-head">
        <strong>{state.original_filename}</strong> <span class="muted">{state.file_size}</span> <StatusBadge status={state.status} />
        {state.stage && !final ? <span class="muted"> {state.stage}</span> : null}
        <span class="num">{state.progress}%</span>
      </div>
      <progress max={100} value={state.progress} aria-label={label} />
      {state.status === 'pending' ? <QueuePlace position={state.queue_position} /> : null}
      {state.status === 'completed' && state.task_id ? <a href={`#/library/${state.task_id}`}>Open in the library</a> : null}
      {state.status === 'failed' ? (
        <p class="error">
          <code>{state.error_code}</code> {state.error_message}
        </p>
      ) : null}
      <ErrorNote error={error} />
      <span class="muted small">{formatDate(state.created_at)}</span>
    </li>
  );
}

export function ImportsScreen() {
  const templates = useLoad(() => parley.summaryTemplates.list({ category: 'all' }));
  const recent = useLoad(async () => (await parley.imports.list({ page: 1, per_page: 20 })).data);
  const [file, setFile] = useState<File | null>(null);
  const [over, setOver] = useState(false);
  const [durationMs, setDurationMs] = useState<number | null>(null);
  const { busy, error, setError, run } = useAction();
  const [started, setStarted] = useState<ImportItem[]>([]);
  const input = useRef<HTMLInputElement>(null);
  const [o, setO] = useState<Options>({
    transcription: ['en-US'],
    translation: [],
    mode: 'single',
    summary: 'none',
    template: 'general-summary',
    prompt: '',
    promptSlug: '',
    terms: '',
    fuzzy: '',
    fuzzyCaseInsensitive: false,
    dictionary: '',
    dictionaryCaseSensitive: false,
    callbackUrl: '',
  });
  const set = <K extends keyof Options>(k: K, v: Options[K]) => setO({ ...o, [k]: v });
  // What the server's engines serve: speech languages for imports, targets from the first one.
  const offer = useLanguages();
  const speechChoices = speechOptions(offer, 'import');
  const targetChoices = translationOptions(offer, o.transcription[0]);
  useEffect(() => {
    if (!offer) return;
    const kept = o.transcription.filter((c) => speechChoices.some(([s]) => s === c));
    const transcription = kept.length ? kept : [offeredOr('', speechChoices)].filter(Boolean);
    const from = translationOptions(offer, transcription[0]);
    const translation = o.translation.filter((c) => from.some(([t]) => t === c));
    if (transcription.join() !== o.transcription.join() || translation.join() !== o.translation.join())
      setO({ ...o, transcription, translation });
  }, [offer, o.transcription.join(), o.translation.join()]);

  const choose = async (f: File | null | undefined) => {
    setFile(f ?? null);
    setDurationMs(null);
    if (!f) return;
    const d = await fileDuration(f);
    if (d !== null) setDurationMs(Math.max(1000, Math.round(d * 1000)));
  };
  const estimate = useEstimate(durationMs, o);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!file) {
      setError(new Error('Choose or drop a file first.'));
      return;
    }
    await run(async () => {
      const item = await parley.imports.create(importInput(file, o));
      setStarted([item, ...started]);
      setFile(null);
      setDurationMs(null);
      if (input.current) input.current.value = '';
    });
  };

  const startedIds = new Set(started.map((s) => s.import_id));
  const earlier = (recent.value ?? []).filter((r) => !startedIds.has(r.import_id));

  return (
    <div class="screen">
      <div class="screen-head">
        <h1>Imports</h1>
      </div>
      <Card title="Import a recording" id="new-import">
        <form onSubmit={submit} class="stack">
          <label
            class={`drop${over ? ' over' : ''}${file ? ' chosen' : ''}`}
            for="import-file"
            onDragOver={(e) => {
              e.preventDefault();
              setOver(true);
            }}
            onDragLeave={() => setOver(false)}
            onDrop={(e) => {
              e.preventDefault();
              setOver(false);
              void choose(e.dataTransfer?.files[0]);
            }}
          >
            <span class="drop-title">{file ? file.name : 'Drop an audio file here'}</span>
            <span class="muted">
              {file ? `${(file.size / 1e6).toFixed(1)} MB` : 'or press to choose one: MP3, WAV or M4A, up to 500 MB'}
            </span>
            <input
              ref={input}
              id="import-file"
              type="file"
              accept=".mp3,.wav,.m4a,audio/mpeg,audio/wav,audio/mp4,audio/x-m4a"
              class="sr-only"
              onChange={(e) => choose((e.currentTarget as HTMLInputElement).files?.[0])}
            />
          </label>
          {file ? <EstimateNote check={estimate} /> : null}
          <div class="grid two">
            <LanguageChecks
              legend="Speech languages"
              id="import-speech"
              options={speechChoices}
              value={o.transcription}
              onChange={(v) => set('transcription', v)}
              empty={offer ? 'No speech recognizer here reads files.' : 'Loading…'}
            />
            <LanguageChecks
              legend="Translate into"
              id="import-translation"
              options={targetChoices}
              value={o.translation}
              onChange={(v) => set('translation', v)}
              empty={offer ? `Nothing here translates from ${o.transcription[0] ?? 'this language'}.` : 'Loading…'}
            />
          </div>
          <fieldset class="checks">
            <legend>Speakers</legend>
            <label>
              <input type="radio" name="mode" checked={o.mode === 'single'} onChange={() => set('mode', 'single')} /> One speaker
            </label>
            <label>
              <input type="radio" name="mode" checked={o.mode === 'multi_speaker'} onChange={() => set('mode', 'multi_speaker')} /> Several
              speakers (one speech language)
            </label>
          </fieldset>
          <fieldset class="checks">
            <legend>Summary</legend>
            <label>
              <input type="radio" name="summary" checked={o.summary === 'none'} onChange={() => set('summary', 'none')} /> None
            </label>
            <label>
              <input type="radio" name="summary" checked={o.summary === 'builtin'} onChange={() => set('summary', 'builtin')} /> From a
              template
            </label>
            <label>
              <input type="radio" name="summary" checked={o.summary === 'custom'} onChange={() => set('summary', 'custom')} /> Custom prompt
            </label>
          </fieldset>
          {o.summary === 'builtin' ? (
            <div class="field">
              <label for="import-template">Template</label>
              <select
                id="import-template"
                value={o.template}
                onChange={(e) => set('template', (e.currentTarget as HTMLSelectElement).value)}
              >
                {(templates.value ?? []).map((t) => (
                  <option key={t.slug} value={t.slug}>
                    {t.name} ({t.category})
                  </option>
                ))}
              </select>
            </div>
          ) : null}
          {o.summary === 'custom' ? (
            <div class="grid two">
              <TextareaField id="import-prompt" label="Prompt" maxLength={3000} value={o.prompt} onInput={(v) => set('prompt', v)} />
              <div class="field">
                <label for="import-prompt-slug">Prompt name (slug)</label>
                <input
                  id="import-prompt-slug"
                  maxLength={64}
                  value={o.promptSlug}
                  onInput={(e) => set('promptSlug', (e.currentTarget as HTMLInputElement).value)}
                />
              </div>
            </div>
          ) : null}
          <details>
            <summary>Glossary, corrections, dictionary and webhook</summary>
            <div class="grid two">
              <TextareaField id="import-terms" label="Terms to recognize (one a line)" value={o.terms} onInput={(v) => set('terms', v)} />
              <TextareaField
                id="import-fuzzy"
                label="Corrections (“right: wrong, wrong” a line)"
                value={o.fuzzy}
                onInput={(v) => set('fuzzy', v)}
              >
                <Check label="Ignore case" checked={o.fuzzyCaseInsensitive} onChange={(v) => set('fuzzyCaseInsensitive', v)} />
              </TextareaField>
              <TextareaField
                id="import-dict"
                label="Translation dictionary (“es: source = target” a line)"
                value={o.dictionary}
                onInput={(v) => set('dictionary', v)}
              >
                <Check label="Match case" checked={o.dictionaryCaseSensitive} onChange={(v) => set('dictionaryCaseSensitive', v)} />
              </TextareaField>
              <div class="field">
                <label for="import-callback">Webhook URL for this import</label>
                <input
                  id="import-callback"
                  type="url"
                  placeholder="https://…"
                  value={o.callbackUrl}
                  onInput={(e) => set('callbackUrl', (e.currentTarget as HTMLInputElement).value)}
                />
              </div>
            </div>
          </details>
          <div>
            <button type="submit" class="primary" disabled={busy || !file}>
              {busy ? 'Uploading…' : 'Import'}
            </button>
          </div>
          <ErrorNote error={error} />
        </form>
      </Card>
      <Card
        title="Imports"
        id="import-list"
        actions={
          <button type="button" onClick={() => recent.reload()}>
            Refresh
          </button>
        }
      >
        <ErrorNote error={recent.error} />
        <ul class="imports">
          {started.map((item) => (
            <ImportProgress key={item.import_id} item={item} onEnd={() => {}} />
          ))}
          {earlier.map((item) => (
            <ImportProgress key={item.import_id} item={item} onEnd={() => {}} />
          ))}
        </ul>
        {started.length === 0 && earlier.length === 0 ? <p class="muted">No imports yet.</p> : null}
      </Card>
    </div>
  );
}
