/**
 * Live: the microphone over /ws (a ticket, `start` with audio_format webm, MediaRecorder
 * chunks as binary frames), captions as they come (interim text in grey italics, finals in
 * full), the translations beside each sentence, speaker labels, pause/resume/stop, the
 * elapsed time and the points the recording has used so far.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { type LiveSession, ParleyError, type Plan, parley } from './api';
import { applyCaptionEvent, type Caption, finalCaptions } from './captions';
import { SentenceEditor, type SentenceEdits } from './correct';
import { languageName, useLivePick } from './languages';
import { LevelMeter, MicrophoneSelect } from './mic-input';
import { chosenMicrophone, Microphone } from './microphone';
import { Card, clock, ErrorNote, formatPoints, LanguageChecks, LanguageSelect, speakerName } from './ui';

/**
 * Ends a microphone session: the recorder hands over its last chunk, then the session's
 * `stop` waits for the final results; the socket is closed whatever failed (the failure
 * goes to `onError`). Shared by Live and a broadcast's host.
 */
export async function endMicSession(mic: Microphone | null, session: LiveSession | null, onError: (err: unknown) => void) {
  try {
    await mic?.stop();
    await session?.stop();
  } catch (err) {
    onError(err);
  } finally {
    session?.close();
  }
}

export function CaptionList({
  captions,
  languages,
  edits,
}: {
  captions: Map<number, Caption>;
  languages: string[];
  edits?: SentenceEdits;
}) {
  const box = useRef<HTMLDivElement>(null);
  const list = [...captions.values()].sort((a, b) => a.sid - b.sid);
  // Follow the newest caption inside the list (not the page).
  useEffect(() => {
    if (box.current && captions.size > 0) box.current.scrollTop = box.current.scrollHeight;
  }, [captions]);
  if (list.length === 0) return <p class="muted">Captions appear here as you speak.</p>;
  return (
    <div class="captions" ref={box} aria-live="polite" aria-relevant="additions text">
      {list.map((c) => (
        <div key={c.sid} class={`caption ${c.final ? 'final' : 'interim'}`} data-sid={c.sid}>
          {c.speaker ? <span class="who-said">{speakerName(c.speaker)}</span> : null}
          <span class="source">{c.text}</span>
          {edits && c.final ? <SentenceEditor sid={c.sid} text={c.text} corrected={c.corrected === true} edits={edits} /> : null}
          <span class="translations">
            {languages.map((l) =>
              c.translations[l] ? (
                <span key={l} class="translation" lang={l}>
                  <span class="sr-only">{languageName(l)}: </span>
                  {c.translations[l]}
                </span>
              ) : null,
            )}
          </span>
        </div>
      ))}
    </div>
  );
}

type Phase = 'idle' | 'starting' | 'recording' | 'paused' | 'stopping' | 'ended';

/** Elapsed recording time (not counting pauses), ticking once a second. */
export function useElapsed(running: boolean, reset: unknown): number {
  const [elapsed, setElapsed] = useState(0);
  const since = useRef<number | null>(null);
  const banked = useRef(0);
  useEffect(() => {
    banked.current = 0;
    since.current = null;
    setElapsed(0);
  }, [reset]);
  useEffect(() => {
    if (!running) {
      if (since.current !== null) banked.current += (Date.now() - since.current) / 1000;
      since.current = null;
      return;
    }
    since.current = Date.now();
    const timer = setInterval(() => setElapsed(banked.current + (Date.now() - (since.current ?? Date.now())) / 1000), 500);
    return () => clearInterval(timer);
  }, [running]);
  return elapsed;
}

/** Points used so far by the recording of `taskId` (its usage row, a running total), polled. */
export function useBurn(taskId: string | null, active: boolean, onCreditChange: () => void): number | null {
  const [points, setPoints] = useState<number | null>(null);
  useEffect(() => {
    if (!taskId) {
      setPoints(null);
      return;
    }
    let stopped = false;
    const poll = async () => {
      try {
        const usage = await parley.me.usage({ page: 1, per_page: 10 });
        const row = usage.data.find((r) => r.task_id === taskId);
        if (!stopped) setPoints(row ? row.points : 0);
        onCreditChange();
      } catch {
        // The meter waits for the next poll.
      }
    };
    void poll();
    if (!active) return;
    const timer = setInterval(poll, 10_000);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [taskId, active, onCreditChange]);
  return points;
}

export function LiveScreen({ plan, onCreditChange }: { plan: Plan; onCreditChange: () => void }) {
  // What the server's engines serve live, and the targets reachable from the chosen language.
  const { offer, language, setLanguage, targets, setTargets, speechChoices, targetChoices } = useLivePick('en-US', ['es']);
  const [mode, setMode] = useState<'single' | 'multi_speaker'>('single');
  const [name, setName] = useState('');
  const [phase, setPhase] = useState<Phase>('idle');
  const [status, setStatus] = useState('');
  const [captions, setCaptions] = useState<Map<number, Caption>>(new Map());
  const [taskId, setTaskId] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const captionsRef = useRef(captions);
  const session = useRef<LiveSession | null>(null);
  const mic = useRef<Microphone | null>(null);
  // The open input the level meter reads: the recording's, or a test before it.
  const [input, setInput] = useState<Microphone | null>(null);
  const testing = useRef<Microphone | null>(null);
  const elapsed = useElapsed(phase === 'recording', taskId);
  const burn = useBurn(taskId, phase === 'recording' || phase === 'paused', onCreditChange);

  // Leaving the screen ends the recording (the browser would keep the microphone otherwise).
  useEffect(
    () => () => {
      void mic.current?.stop();
      void testing.current?.stop();
      session.current?.close();
    },
    [],
  );

  // In-place corrections of final captions while recording; every audience gets them.
  const liveEdits: SentenceEdits = {
    correct: async (sid, text) => {
      await session.current?.correct(sid, text);
    },
    undo: async (sid) => {
      await session.current?.undoCorrection(sid);
    },
  };

  const finish = async () => {
    setPhase('stopping');
    await endMicSession(mic.current, session.current, setError);
    session.current = null;
    mic.current = null;
    setInput(null);
    captionsRef.current = finalCaptions(captionsRef.current);
    setCaptions(captionsRef.current);
    setPhase('ended');
  };

  const start = async (e: Event) => {
    e.preventDefault();
    setError(null);
    captionsRef.current = new Map();
    setCaptions(captionsRef.current);
    setTaskId(null);
    setPhase('starting');
    await stopTest();
    try {
      mic.current = await Microphone.open(chosenMicrophone());
      setInput(mic.current);
      const s = await parley.live.start(
        {
          type: 'transcribe',
          audio_format: 'webm',
          transcription_languages: [language],
          translation_languages: targets,
          realtime_translation: targets.length > 0,
          recognition_mode: mode,
          ...(name.trim() ? { name: name.trim() } : {}),
        },
        (event) => {
          const next = applyCaptionEvent(captionsRef.current, event);
          if (next) {
            captionsRef.current = next;
            setCaptions(next);
          }
          if (event.action === 'status') setStatus(event.data.status);
        },
      );
      session.current = s;
      s.onError((err) => {
        setError(err);
        // A fatal error without a sentence ends the recording.
        if (err.severity === 'fatal' && err.sid === undefined) void finish();
      });
      void s.closed.then(() => setPhase((p) => (p === 'recording' || p === 'paused' ? 'ended' : p)));
      setTaskId(s.taskId ?? null);
      mic.current.start((chunk) => s.sendAudio(chunk));
      setPhase('recording');
    } catch (err) {
      await mic.current?.stop().catch(() => {});
      mic.current = null;
      setInput(null);
      setError(err instanceof ParleyError || err instanceof Error ? err : new Error(String(err)));
      setPhase('idle');
    }
  };

  // Test: the chosen input opened for its level only (and, once allowed, the inputs' names).
  const stopTest = async () => {
    const t = testing.current;
    testing.current = null;
    setInput((i) => (i === t ? null : i));
    await t?.stop().catch(() => {});
  };
  const test = async () => {
    setError(null);
    if (testing.current) return stopTest();
    try {
      testing.current = await Microphone.open(chosenMicrophone());
      setInput(testing.current);
    } catch (err) {
      setError(err instanceof Error ? err : new Error(String(err)));
    }
  };

  const pause = async () => {
    mic.current?.pause();
    setPhase('paused');
    await session.current?.pause().catch(setError);
  };
  const resume = async () => {
    await session.current?.resume().catch(setError);
    mic.current?.resume();
    setPhase('recording');
  };

  const busy = phase !== 'idle' && phase !== 'ended';
  return (
    <div class="screen">
      <div class="screen-head">
        <h1>Live</h1>
      </div>
      <Card title="Microphone" id="live-setup">
        <form class="row" onSubmit={start}>
          <MicrophoneSelect
            disabled={busy}
            refresh={input}
            onChange={() => {
              // A test in progress moves to the newly chosen input.
              if (testing.current) void stopTest().then(test);
            }}
          />
          <LanguageSelect
            id="live-language"
            label="Speech language"
            value={language}
            options={speechChoices}
            onChange={setLanguage}
            disabled={busy}
          />
          <div class="field">
            <label for="live-mode">Speakers</label>
            <select
              id="live-mode"
              value={mode}
              disabled={busy}
              onChange={(ev) => setMode((ev.currentTarget as HTMLSelectElement).value as 'single' | 'multi_speaker')}
            >
              <option value="single">One speaker</option>
              <option value="multi_speaker">Several (speaker labels)</option>
            </select>
          </div>
          <div class="field">
            <label for="live-name">Name (optional)</label>
            <input
              id="live-name"
              maxLength={60}
              value={name}
              disabled={busy}
              onInput={(ev) => setName((ev.currentTarget as HTMLInputElement).value)}
            />
          </div>
          <LanguageChecks
            legend="Translate into"
            id="live-translation"
            options={targetChoices}
            value={targets}
            onChange={setTargets}
            disabled={busy}
            empty={offer ? `Nothing here translates from ${languageName(language)}.` : 'Loading…'}
          />
          <div class="live-controls">
            {!busy ? (
              <button type="submit" class="primary">
                Start recording
              </button>
            ) : null}
            {!busy ? (
              <button type="button" onClick={test} aria-pressed={input !== null}>
                {input ? 'Stop test' : 'Test microphone'}
              </button>
            ) : null}
            {phase === 'recording' ? (
              <button type="button" onClick={pause}>
                Pause
              </button>
            ) : null}
            {phase === 'paused' ? (
              <button type="button" onClick={resume}>
                Resume
              </button>
            ) : null}
            {phase === 'recording' || phase === 'paused' ? (
              <button type="button" class="danger" onClick={finish}>
                Stop
              </button>
            ) : null}
          </div>
        </form>
        <LevelMeter mic={input} />
        <div class="meters" aria-live="off">
          <div class="meter">
            <span class="value" role="timer" aria-label="Elapsed time">
              {phase === 'recording' || phase === 'paused' ? (
                <span class={`recording-dot${phase === 'paused' ? ' paused' : ''}`} aria-hidden="true" />
              ) : null}
              {clock(elapsed)}
            </span>
            <span class="label">Elapsed</span>
          </div>
          <div class="meter">
            <span class="value" data-testid="burn">
              {burn === null ? '—' : formatPoints(burn)}
            </span>
            <span class="label">Points used by this recording</span>
          </div>
          {plan.mode === 'credit' ? (
            <div class="meter">
              <span class="value">{formatPoints(plan.available_credit)}</span>
              <span class="label">Points available</span>
            </div>
          ) : null}
          <div class="meter">
            <span class="value" role="status">
              {phase === 'starting' ? 'starting' : phase === 'stopping' ? 'saving' : status || phase}
            </span>
            <span class="label">State</span>
          </div>
        </div>
        <ErrorNote error={error} />
        {phase === 'ended' && taskId ? (
          <p class="notice" role="status">
            Saved. <a href={`#/library/${taskId}`}>Open the recording in the library</a>
          </p>
        ) : null}
      </Card>
      <Card title="Captions" id="captions">
        <CaptionList captions={captions} languages={targets} edits={phase === 'recording' || phase === 'paused' ? liveEdits : undefined} />
      </Card>
    </div>
  );
}
