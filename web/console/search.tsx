/**
 * The library's search over everything said (GET /api/v1/search): a search box with a type
 * filter, hits best first with their matches marked, paging, and a player that opens on a
 * hit at the moment it was said. Live tasks are found too (no audio until they end).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Success } from '../../src/client/index.js';
import { parley } from './api';
import { clock, ErrorNote, formatDate, speakerName, useAction } from './ui';

type Result = Success<'GET /api/v1/search'>;
export type SearchHit = Result['data'][number];

const FIELD_NAMES: Record<SearchHit['field'], string> = {
  title: 'Title',
  transcript: 'Transcript',
  translation: 'Translation',
  summary: 'Summary',
  speaker: 'Speaker',
};

/** The snippet with its matches as <mark> elements (offsets from the server; no markup parsed). */
export function Marked({ hit }: { hit: Pick<SearchHit, 'snippet' | 'highlights'> }) {
  const parts = [];
  let at = 0;
  for (const [i, h] of hit.highlights.entries()) {
    if (h.start > at) parts.push(hit.snippet.slice(at, h.start));
    parts.push(<mark key={i}>{hit.snippet.slice(h.start, h.end)}</mark>);
    at = h.end;
  }
  parts.push(hit.snippet.slice(at));
  return <span class="snippet">{parts}</span>;
}

export function LibrarySearch() {
  const [q, setQ] = useState('');
  const [type, setType] = useState('');
  const [result, setResult] = useState<{ q: string; data: SearchHit[]; meta: Result['meta'] } | null>(null);
  const [playing, setPlaying] = useState<SearchHit | null>(null);
  const action = useAction();

  const search = (page: number) =>
    action.run(async () => {
      const query = q.trim();
      if (!query) return setResult(null);
      const r = (await parley.search({
        q: query,
        page,
        per_page: 10,
        ...(type ? { type: type as Parameters<typeof parley.search>[0]['type'] } : {}),
      })) as Result;
      setResult({ q: query, data: r.data, meta: r.meta });
    });

  const meta = result?.meta;
  return (
    <div class="library-search">
      <search>
        <form
          class="toolbar"
          onSubmit={(e) => {
            e.preventDefault();
            void search(1);
          }}
        >
          <div class="field grow">
            <label for="transcript-search">Search everything said</label>
            <input
              id="transcript-search"
              type="search"
              placeholder='words, "a phrase", prefix*'
              value={q}
              onInput={(e) => setQ((e.currentTarget as HTMLInputElement).value)}
            />
          </div>
          <div class="field">
            <label for="search-type">Type</label>
            <select id="search-type" value={type} onChange={(e) => setType((e.currentTarget as HTMLSelectElement).value)}>
              <option value="">Any</option>
              <option value="transcribe">Transcribe</option>
              <option value="conversation">Conversation</option>
              <option value="record">Record</option>
              <option value="broadcast">Broadcast</option>
            </select>
          </div>
          <button type="submit" disabled={action.busy}>
            Search
          </button>
        </form>
      </search>
      <ErrorNote error={action.error} />
      {playing ? <HitPlayer key={`${playing.task_id}:${playing.start_ms}`} hit={playing} onClose={() => setPlaying(null)} /> : null}
      {result ? (
        <section aria-label="Search results">
          <p class="muted" role="status">
            {/* A capped total is the newest matches ranked: more were found, hence the "+". */}
            {meta?.total
              ? `${meta.total}${meta.total_capped ? '+' : ''} hit${meta.total === 1 ? '' : 's'} for “${result.q}”`
              : `Nothing found for “${result.q}”.`}
          </p>
          <ol class="hits">
            {result.data.map((h, i) => (
              <li key={`${h.task_id}:${h.field}:${h.sid}:${h.language}:${i}`}>
                <button
                  type="button"
                  class="hit"
                  onClick={() => setPlaying(h)}
                  aria-label={`Play ${h.title} at ${clock((h.start_ms ?? 0) / 1000)}`}
                >
                  <span class="hit-head">
                    <strong>{h.title}</strong>
                    <span class="badge">{FIELD_NAMES[h.field]}</span>
                    {h.language && h.field !== 'transcript' ? <span class="badge">{h.language}</span> : null}
                    {h.start_ms !== null ? <span class="time">{clock(h.start_ms / 1000)}</span> : null}
                    {h.speaker_label && h.field !== 'speaker' ? <span class="speaker">{speakerName(h.speaker_label)}</span> : null}
                    <span class="muted">{formatDate(h.created_at)}</span>
                  </span>
                  <Marked hit={h} />
                </button>
              </li>
            ))}
          </ol>
          {meta && meta.last_page > 1 ? (
            <nav class="pager" aria-label="Search pages">
              <button type="button" disabled={meta.current_page <= 1 || action.busy} onClick={() => search(meta.current_page - 1)}>
                Previous
              </button>
              <span>
                Page {meta.current_page} of {meta.last_page}
              </span>
              <button
                type="button"
                disabled={meta.current_page >= meta.last_page || action.busy}
                onClick={() => search(meta.current_page + 1)}
              >
                Next
              </button>
            </nav>
          ) : null}
        </section>
      ) : null}
    </div>
  );
}

/** The hit's recording, playing from the hit's moment (fetched with the key, played from a blob). */
function HitPlayer({ hit, onClose }: { hit: SearchHit; onClose: () => void }) {
  const audioRef = useRef<HTMLAudioElement>(null);
  const [src, setSrc] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const at = (hit.start_ms ?? 0) / 1000;

  useEffect(() => {
    let url: string | null = null;
    parley.tasks
      .audio(hit.task_id)
      .then(async (res) => {
        if (!res.ok)
          throw new Error(res.status === 404 ? 'No audio yet (a live session has audio once it ends).' : `Audio: HTTP ${res.status}`);
        url = URL.createObjectURL(await res.blob());
        setSrc(url);
      })
      .catch(setError);
    const audio = audioRef.current;
    return () => {
      if (audio) {
        audio.pause();
        audio.removeAttribute('src');
        audio.load();
      }
      if (url) URL.revokeObjectURL(url);
    };
  }, [hit.task_id]);

  const start = () => {
    const audio = audioRef.current;
    if (!audio) return;
    audio.currentTime = at;
    audio.play().catch(() => {});
  };
  return (
    <section class="player hit-player" aria-label="Search hit player">
      <p>
        <strong>{hit.title}</strong> from <span class="time">{clock(at)}</span> · <a href={`#/library/${hit.task_id}`}>Open task</a>{' '}
        <button type="button" onClick={onClose}>
          Close
        </button>
      </p>
      {/* biome-ignore lint/a11y/useMediaCaption: the snippet is the caption */}
      <audio ref={audioRef} controls preload="metadata" src={src ?? undefined} onLoadedMetadata={start} aria-label="Hit recording" />
      <ErrorNote error={error} />
    </section>
  );
}
