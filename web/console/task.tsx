/**
 * One task: rename, pin, delete, export in every format; the audio player with its transcript
 * (the sentence being played is highlighted; a click on a sentence seeks to it); speakers
 * (rename, reassign a sentence, merge); the summary with regenerate; retranslation.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { parley, type Sentence, type TaskDetail } from './api';
import { SentenceEditor, type SentenceEdits, sentenceEdits } from './correct';
import { languageName, translationOptions, useLanguages } from './languages';
import { RenameForm } from './library';
import { Card, Check, ErrorNote, formatDate, LanguageSelect, StatusBadge, saveBlob, seconds, speakerName, useAction, useLoad } from './ui';

interface History {
  diarized: boolean;
  translationLanguages: string[];
  sentences: Sentence[];
  summary: { text: string; mode: string | null; template: string | null; summary_language: string | null } | null;
}

/** The transcript from the history stream (connected, init_metadata, init_sentence..., init_summary, init_done). */
async function loadHistory(taskId: string): Promise<History> {
  const h: History = { diarized: false, translationLanguages: [], sentences: [], summary: null };
  for await (const e of await parley.tasks.history(taskId)) {
    if (e.event === 'init_metadata') {
      h.diarized = e.data.has_speaker_diarization;
      h.translationLanguages = e.data.translation_languages ?? [];
    } else if (e.event === 'init_sentence') h.sentences.push(e.data as Sentence);
    else if (e.event === 'init_summary') h.summary = e.data.text ? e.data : null;
    else if (e.event === 'error') throw new Error(e.data.message);
  }
  return h;
}

const EXPORTS = [
  ['txt', 'Transcript: plain text (TXT)'],
  ['srt', 'Subtitles: SubRip (SRT)'],
  ['sbv', 'Subtitles: YouTube (SBV)'],
  ['vtt', 'Subtitles: WebVTT (VTT)'],
  ['csv', 'Table: CSV'],
  ['m4a', 'Audio: M4A'],
  ['mp3', 'Audio: MP3'],
] as const;

function ExportCard({ task, languages, diarized }: { task: TaskDetail; languages: string[]; diarized: boolean }) {
  const [format, setFormat] = useState<string>('srt');
  const [language, setLanguage] = useState('');
  const [speakers, setSpeakers] = useState(true);
  const { busy, error, run } = useAction();
  const audio = format === 'm4a' || format === 'mp3';
  const save = async (e: Event) => {
    e.preventDefault();
    await run(async () => {
      const blob = audio
        ? await parley.tasks.exportAudio(task.task_id, { format: format as 'm4a' | 'mp3' })
        : await parley.tasks.exportTranscript(task.task_id, {
            format: format as 'txt' | 'srt' | 'sbv' | 'vtt' | 'csv',
            ...(language ? { language } : {}),
            ...(diarized ? { speakers } : {}),
          });
      saveBlob(blob, `${task.title}${!audio && language ? `.${language}` : ''}.${format}`);
    });
  };
  return (
    <Card title="Export" id="export">
      <form class="row" onSubmit={save}>
        <div class="field">
          <label for="export-format">Format</label>
          <select id="export-format" value={format} onChange={(e) => setFormat((e.currentTarget as HTMLSelectElement).value)}>
            {EXPORTS.map(([f, name]) => (
              <option key={f} value={f} disabled={(f === 'm4a' || f === 'mp3') && !task.has_audio}>
                {name}
              </option>
            ))}
          </select>
        </div>
        {!audio && languages.length > 0 ? (
          <LanguageSelect
            id="export-language"
            label="Text"
            value={language}
            empty="Original"
            options={languages.map((l) => [l, languageName(l)])}
            onChange={setLanguage}
          />
        ) : null}
        {!audio && diarized ? <Check label="Speaker labels" checked={speakers} onChange={setSpeakers} /> : null}
        <button type="submit" class="primary" disabled={busy}>
          Download
        </button>
      </form>
      <ErrorNote error={error} />
    </Card>
  );
}

/** The audio (fetched with the key, played from a blob) and the transcript that follows it. */
function PlayerAndTranscript(props: {
  task: TaskDetail;
  history: History;
  shownLanguage: string;
  speakers: Array<[string, string]>;
  onReassign: (sid: number, speaker: string) => void;
  /** In-place corrections (correct.tsx) and the sentences corrected here (undo offered). */
  edits: SentenceEdits;
  corrected: ReadonlySet<number>;
}) {
  const { task, history } = props;
  const audioRef = useRef<HTMLAudioElement>(null);
  const [src, setSrc] = useState<string | null>(null);
  const [audioError, setAudioError] = useState<unknown>(null);
  const [current, setCurrent] = useState<number | null>(null);

  useEffect(() => {
    if (!task.has_audio || task.processing_status !== 'completed') return;
    let url: string | null = null;
    parley.tasks
      .audio(task.task_id)
      .then((res) => res.blob())
      .then((blob) => {
        url = URL.createObjectURL(blob);
        setSrc(url);
      })
      .catch(setAudioError);
    const audio = audioRef.current;
    return () => {
      // Detach the element from the blob before freeing it (it would try to read a freed URL).
      if (audio) {
        audio.pause();
        audio.removeAttribute('src');
        audio.load();
      }
      if (url) URL.revokeObjectURL(url);
    };
  }, [task.task_id, task.has_audio, task.processing_status]);

  const starts = history.sentences.map((s) => seconds(s.start_time));
  const follow = () => {
    const t = audioRef.current?.currentTime ?? 0;
    let at: number | null = null;
    starts.forEach((s, i) => {
      if (s <= t + 0.05) at = i;
    });
    setCurrent(at);
  };
  const seek = (i: number) => {
    const audio = audioRef.current;
    if (!audio) return;
    audio.currentTime = starts[i] ?? 0;
    setCurrent(i);
    audio.play().catch(() => {});
  };
  const lang = props.shownLanguage;
  return (
    <Card title="Transcript" id="transcript">
      {task.has_audio ? (
        <div class="player">
          {/* biome-ignore lint/a11y/useMediaCaption: the transcript below is the caption */}
          <audio
            ref={audioRef}
            controls
            preload="metadata"
            src={src ?? undefined}
            onTimeUpdate={follow}
            onSeeked={follow}
            aria-label="Recording"
          />
          {!src && !audioError ? <span class="muted">Loading audio…</span> : null}
          <ErrorNote error={audioError} />
        </div>
      ) : (
        <p class="muted">No audio kept for this task.</p>
      )}
      {history.sentences.length === 0 ? <p class="muted">No sentences.</p> : null}
      <ol class="sentences">
        {history.sentences.map((s, i) => (
          <li key={`${s.sid}-${i}`} class={current === i ? 'playing' : undefined} aria-current={current === i ? 'true' : undefined}>
            <button type="button" class="seek" onClick={() => seek(i)} aria-label={`Play from ${s.start_time}: ${s.origin}`}>
              <span class="time">{s.start_time}</span>
              {history.diarized ? <span class="speaker">{speakerName(s.speaker_label ?? s.speaker_id)}</span> : null}
              <span class="origin">{s.origin}</span>
            </button>
            <SentenceEditor sid={s.sid} text={s.origin} corrected={props.corrected.has(s.sid)} edits={props.edits} />
            {lang ? (
              <span class="translation" lang={lang}>
                {s.translations?.[lang] ?? ''}
              </span>
            ) : null}
            {history.diarized && props.speakers.length > 1 ? (
              <select
                class="reassign"
                aria-label={`Speaker of sentence ${s.sid}`}
                value={s.speaker_id}
                onChange={(e) => props.onReassign(s.sid, (e.currentTarget as HTMLSelectElement).value)}
              >
                {props.speakers.map(([id, label]) => (
                  <option key={id} value={id}>
                    {speakerName(label)}
                  </option>
                ))}
              </select>
            ) : null}
          </li>
        ))}
      </ol>
    </Card>
  );
}

/** A required choice of one of the task's speakers (id, label). */
function SpeakerSelect(props: {
  id: string;
  label: string;
  speakers: Array<[string, string]>;
  value: string;
  onChange: (id: string) => void;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange((e.currentTarget as HTMLSelectElement).value)} required>
        <option value="">Choose…</option>
        {props.speakers.map(([id, label]) => (
          <option key={id} value={id}>
            {speakerName(label)}
          </option>
        ))}
      </select>
    </div>
  );
}

function SpeakersCard(props: { taskId: string; speakers: Array<[string, string]>; onChanged: (note: string) => void }) {
  const [error, setError] = useState<unknown>(null);
  const [names, setNames] = useState<Record<string, string>>({});
  const [source, setSource] = useState('');
  const [target, setTarget] = useState('');
  const run = async (what: () => Promise<string>) => {
    setError(null);
    try {
      props.onChanged(await what());
    } catch (err) {
      setError(err);
    }
  };
  return (
    <Card title="Speakers" id="speakers">
      <ul class="speakers">
        {props.speakers.map(([id, label]) => (
          <li key={id}>
            <form
              class="inline"
              onSubmit={(e) => {
                e.preventDefault();
                const newLabel = (names[id] ?? label).trim();
                void run(async () => {
                  await parley.tasks.renameSpeaker(props.taskId, { speaker_id: id, new_label: newLabel });
                  return `${speakerName(label)} is now ${newLabel}.`;
                });
              }}
            >
              <label for={`speaker-${id}`}>{speakerName(id)}</label>
              <input
                id={`speaker-${id}`}
                maxLength={100}
                value={names[id] ?? label}
                onInput={(e) => setNames({ ...names, [id]: (e.currentTarget as HTMLInputElement).value })}
              />
              <button type="submit">Rename</button>
            </form>
          </li>
        ))}
      </ul>
      {props.speakers.length > 1 ? (
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            void run(async () => {
              const r = await parley.tasks.mergeSpeakers(props.taskId, { source_speaker_id: source, target_speaker_id: target });
              return `Merged into ${speakerName(r.target_speaker_label)} (${r.affected_sids.length} sentences).`;
            });
          }}
        >
          <SpeakerSelect id="merge-source" label="Merge speaker" speakers={props.speakers} value={source} onChange={setSource} />
          <SpeakerSelect id="merge-target" label="into" speakers={props.speakers} value={target} onChange={setTarget} />
          <button type="submit">Merge</button>
        </form>
      ) : null}
      <ErrorNote error={error} />
    </Card>
  );
}

function SummaryCard(props: { task: TaskDetail; summary: History['summary']; onSaved: () => void }) {
  const templates = useLoad(async () => parley.summaryTemplates.list({ category: 'all' }));
  const [template, setTemplate] = useState(props.task.summary_template ?? 'general-summary');
  const from = props.task.transcription_languages?.[0] ?? 'en-US';
  const [language, setLanguage] = useState(props.task.summary_language ?? from);
  // The transcript's language, or one a translator here reaches from it (the summary is
  // written in the transcript's language and translated; docs/summaries.md).
  const offer = useLanguages();
  const languageChoices: Array<[string, string]> = [
    [from, languageName(from)],
    ...translationOptions(offer, from).filter(([c]) => c !== from),
  ];
  const [text, setText] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const regenerate = async (e: Event) => {
    e.preventDefault();
    setText('');
    await run(async () => {
      const events = await parley.summaries.regenerate(props.task.task_id, { mode: 'builtin', template, language });
      const done = await events.until('done', (e) => {
        if (e.event === 'summary_regeneration') setText(e.data.text);
      });
      setText(done.final_content);
      props.onSaved();
    });
  };
  const shown = text ?? props.summary?.text ?? '';
  return (
    <Card title="Summary" id="summary">
      {shown ? (
        <p class="summary" aria-live="polite">
          {shown}
        </p>
      ) : (
        <p class="muted">No summary yet.</p>
      )}
      <form class="row" onSubmit={regenerate}>
        <div class="field">
          <label for="summary-template">Template</label>
          <select id="summary-template" value={template} onChange={(e) => setTemplate((e.currentTarget as HTMLSelectElement).value)}>
            {(templates.value ?? [{ slug: template, name: template, description: null, category: 'summary' }]).map((t) => (
              <option key={t.slug} value={t.slug}>
                {t.name}
              </option>
            ))}
          </select>
        </div>
        <LanguageSelect id="summary-language" label="Language" value={language} options={languageChoices} onChange={setLanguage} />
        <button type="submit" disabled={busy || props.task.processing_status !== 'completed'}>
          {busy ? 'Writing…' : props.summary ? 'Regenerate' : 'Summarize'}
        </button>
      </form>
      <p class="muted small">Regenerating is billed and saves the new summary.</p>
      <ErrorNote error={error} />
    </Card>
  );
}

function RetranslateCard(props: {
  taskId: string;
  /** The task's (first) speech language: the targets offered are those reachable from it. */
  from: string | undefined;
  have: string[];
  onTranslation: (lang: string, sid: number, text: string) => void;
  onDone: (lang: string) => void;
}) {
  const choices = translationOptions(useLanguages(), props.from);
  // The first language the task has no translation in yet.
  const [picked, setLang] = useState<string | null>(null);
  const lang = picked ?? choices.find(([code]) => !props.have.includes(code))?.[0] ?? choices[0]?.[0] ?? '';
  const [note, setNote] = useState('');
  const { busy, error, run } = useAction();
  const go = async (e: Event) => {
    e.preventDefault();
    setNote('');
    await run(async () => {
      const events = await parley.retranslate.task(props.taskId, lang);
      const done = await events.until('done', (e) => {
        if (e.event === 'translation') props.onTranslation(lang, e.data.sid, e.data.text);
      });
      setNote(`${done.totalUpdated} sentences translated into ${languageName(lang)}.`);
      props.onDone(lang);
    });
  };
  return (
    <Card title="Translate again" id="retranslate">
      <form class="row" onSubmit={go}>
        <LanguageSelect id="retranslate-language" label="Into" value={lang} options={choices} onChange={setLang} />
        <button type="submit" disabled={busy}>
          {busy ? 'Translating…' : 'Translate'}
        </button>
      </form>
      {note ? <p role="status">{note}</p> : null}
      <ErrorNote error={error} />
    </Card>
  );
}

export function TaskView({ taskId }: { taskId: string }) {
  const task = useLoad(async () => parley.tasks.get(taskId), [taskId]);
  const history = useLoad(() => loadHistory(taskId), [taskId]);
  const [shownLanguage, setShownLanguage] = useState<string | null>(null);
  const [renaming, setRenaming] = useState(false);
  const [notice, setNotice] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [corrected, setCorrected] = useState<ReadonlySet<number>>(new Set());

  useEffect(() => {
    // Opening a task marks it read.
    parley.tasks.markRead(taskId).catch(() => {});
  }, [taskId]);

  const t = task.value;
  const h = history.value;
  const languages = h ? [...new Set([...h.translationLanguages, ...h.sentences.flatMap((s) => Object.keys(s.translations ?? {}))])] : [];
  const lang = shownLanguage ?? languages[0] ?? '';
  const speakers: Array<[string, string]> = h?.diarized
    ? [...new Map(h.sentences.filter((s) => s.speaker_id).map((s) => [s.speaker_id, s.speaker_label ?? s.speaker_id])).entries()]
    : [];

  const edits = sentenceEdits(
    taskId,
    (sid, change) =>
      history.setValue((cur) => (cur ? { ...cur, sentences: cur.sentences.map((x) => (x.sid === sid ? { ...x, ...change } : x)) } : cur)),
    setCorrected,
    setNotice,
  );

  const act = async (what: () => Promise<string>) => {
    setError(null);
    try {
      setNotice(await what());
      await task.reload();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <div class="screen">
      <p>
        <a href="#/library">← Library</a>
      </p>
      <ErrorNote error={task.error ?? history.error ?? error} />
      {t ? (
        <>
          <div class="screen-head">
            {renaming ? (
              <RenameForm
                title={t.title}
                onCancel={() => setRenaming(false)}
                onSave={(name) => {
                  setRenaming(false);
                  void act(async () => {
                    await parley.tasks.rename(taskId, name);
                    return 'Renamed.';
                  });
                }}
              />
            ) : (
              <h1>{t.title}</h1>
            )}
            <div class="actions">
              <button type="button" onClick={() => setRenaming(true)}>
                Rename
              </button>
              <button
                type="button"
                aria-pressed={t.is_pinned}
                onClick={() =>
                  act(async () => {
                    await parley.tasks.pin(taskId, !t.is_pinned);
                    return t.is_pinned ? 'Unpinned.' : 'Pinned.';
                  })
                }
              >
                {t.is_pinned ? '★ Pinned' : '☆ Pin'}
              </button>
              <button type="button" class="danger" onClick={() => setConfirmDelete(true)}>
                Delete
              </button>
            </div>
          </div>
          {confirmDelete ? (
            <div class="confirm" role="alertdialog" aria-labelledby="confirm-one">
              <span id="confirm-one">Delete “{t.title}” permanently?</span>
              <button
                type="button"
                class="danger"
                onClick={() =>
                  act(async () => {
                    await parley.tasks.delete(taskId);
                    location.hash = '#/library';
                    return 'Deleted.';
                  })
                }
              >
                Delete permanently
              </button>
              <button type="button" onClick={() => setConfirmDelete(false)}>
                Cancel
              </button>
            </div>
          ) : null}
          <p class="meta">
            <StatusBadge status={t.processing_status} /> {t.type_source} · {t.duration_formatted} · {formatDate(t.created_at)} · speech{' '}
            {(t.transcription_languages ?? []).join(', ') || '—'}
          </p>
          {notice ? (
            <p class="notice" role="status">
              {notice}
            </p>
          ) : null}
          {h ? (
            <>
              <div class="grid two">
                <ExportCard task={t} languages={languages} diarized={h.diarized} />
                <RetranslateCard
                  taskId={taskId}
                  from={t.transcription_languages?.[0]}
                  have={languages}
                  onTranslation={(l, sid, text) => {
                    setShownLanguage(l);
                    // One event at a time: build on the latest state, not this render's.
                    history.setValue((cur) =>
                      cur
                        ? {
                            ...cur,
                            sentences: cur.sentences.map((x) =>
                              x.sid === sid ? { ...x, translations: { ...(x.translations ?? {}), [l]: text } } : x,
                            ),
                          }
                        : cur,
                    );
                  }}
                  onDone={() => history.reload()}
                />
              </div>
              {languages.length > 1 ? (
                <LanguageSelect
                  id="shown-language"
                  label="Translation shown beside the text"
                  value={lang}
                  options={languages.map((l) => [l, languageName(l)])}
                  onChange={setShownLanguage}
                />
              ) : null}
              <PlayerAndTranscript
                task={t}
                history={h}
                shownLanguage={lang}
                speakers={speakers}
                edits={edits}
                corrected={corrected}
                onReassign={(sid, target) =>
                  act(async () => {
                    const r = await parley.tasks.reassignSpeaker(taskId, { sid, target_speaker_id: target });
                    await history.reload();
                    return `Sentence ${sid} is now ${speakerName(r.new_speaker_label)}'s.`;
                  })
                }
              />
              {h.diarized ? (
                <SpeakersCard
                  taskId={taskId}
                  speakers={speakers}
                  onChanged={(note) => {
                    setNotice(note);
                    void history.reload();
                  }}
                />
              ) : null}
              <SummaryCard task={t} summary={h.summary} onSaved={() => history.reload()} />
            </>
          ) : null}
        </>
      ) : null}
    </div>
  );
}
