/**
 * Broadcasts: create one; host it from the microphone over /ws (`start` with type broadcast
 * and its token, in standby or live), go live, announce, pause, stop; the viewer page link
 * (built from the token: `share_url` is a data address the interface says never to share)
 * with its QR code; viewer and queue counts (the owner view, polled).
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { type LiveSession, parley } from './api';
import { applyCaptionEvent, type Caption, finalCaptions } from './captions';
import { languageName, useLivePick } from './languages';
import { CaptionList, endMicSession, useElapsed } from './live';
import { chosenMicrophone, Microphone } from './microphone';
import { QrCode } from './qr';
import { Card, clock, ErrorNote, formatDate, LanguageChecks, LanguageSelect, StatusBadge, Table, useAction, useLoad } from './ui';

const viewerLink = (token: string) => `${location.origin}/b/${token}`;

function CreateForm({ onCreated }: { onCreated: (id: string) => void }) {
  const [name, setName] = useState('');
  // Broadcasts are recognized live: the live speech languages, the targets reachable from the chosen one.
  const { offer, language, setLanguage, targets, setTargets, speechChoices, targetChoices } = useLivePick('en-US', ['es']);
  const [access, setAccess] = useState<'public' | 'password'>('public');
  const [passCode, setPassCode] = useState('');
  const [maxViewers, setMaxViewers] = useState('');
  const [catchUp, setCatchUp] = useState(true);
  const { busy, error, run } = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    await run(async () => {
      const b = await parley.broadcasts.create({
        ...(name.trim() ? { name: name.trim() } : {}),
        transcription_languages: [language],
        translation_languages: targets,
        access_type: access,
        ...(access === 'password' ? { pass_code: passCode } : {}),
        ...(maxViewers ? { max_viewers: Number(maxViewers) } : {}),
        catch_up: catchUp,
      });
      setName('');
      onCreated(b.id);
    });
  };
  return (
    <Card title="New broadcast" id="new-broadcast">
      <form class="stack" onSubmit={submit}>
        <div class="row">
          <div class="field">
            <label for="broadcast-name">Name</label>
            <input id="broadcast-name" maxLength={100} value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
          </div>
          <LanguageSelect id="broadcast-language" label="Speech language" value={language} options={speechChoices} onChange={setLanguage} />
          <div class="field">
            <label for="broadcast-access">Access</label>
            <select
              id="broadcast-access"
              value={access}
              onChange={(e) => setAccess((e.currentTarget as HTMLSelectElement).value as 'public' | 'password')}
            >
              <option value="public">Public</option>
              <option value="password">Password</option>
            </select>
          </div>
          {access === 'password' ? (
            <div class="field">
              <label for="broadcast-pass">Password (4–12, no spaces)</label>
              <input
                id="broadcast-pass"
                minLength={4}
                maxLength={12}
                required
                value={passCode}
                onInput={(e) => setPassCode((e.currentTarget as HTMLInputElement).value)}
              />
            </div>
          ) : null}
          <div class="field">
            <label for="broadcast-max">Most viewers</label>
            <input
              id="broadcast-max"
              type="number"
              min={1}
              placeholder="account limit"
              value={maxViewers}
              onInput={(e) => setMaxViewers((e.currentTarget as HTMLInputElement).value)}
            />
          </div>
        </div>
        <LanguageChecks
          legend="Viewers can read"
          id="broadcast-translation"
          options={targetChoices}
          value={targets}
          onChange={setTargets}
          empty={offer ? `Nothing here translates from ${languageName(language)}.` : 'Loading…'}
        />
        <label>
          <input type="checkbox" checked={catchUp} onChange={(e) => setCatchUp((e.currentTarget as HTMLInputElement).checked)} /> Late
          joiners first see a summary of what was said so far
        </label>
        <div>
          <button type="submit" class="primary" disabled={busy}>
            Create broadcast
          </button>
        </div>
        <ErrorNote error={error} />
      </form>
    </Card>
  );
}

type HostPhase = 'off' | 'starting' | 'on' | 'stopping';

function Manage({ id, onChanged, onCreditChange }: { id: string; onChanged: () => void; onCreditChange: () => void }) {
  const b = useLoad(async () => await parley.broadcasts.get(id), [id]);
  const [host, setHost] = useState<HostPhase>('off');
  const [phase, setPhase] = useState<string | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [captions, setCaptions] = useState<Map<number, Caption>>(new Map());
  const captionsRef = useRef(captions);
  const session = useRef<LiveSession | null>(null);
  const mic = useRef<Microphone | null>(null);
  const elapsed = useElapsed(host === 'on' && phase === 'live', id);
  const [copied, setCopied] = useState(false);

  // Viewer and queue counts: the owner view, every 5 seconds.
  useEffect(() => {
    const timer = setInterval(() => {
      void b.reload();
      onChanged();
    }, 5000);
    return () => clearInterval(timer);
  }, [b.reload, onChanged]);
  useEffect(
    () => () => {
      void mic.current?.stop();
      session.current?.close();
    },
    [],
  );

  const start = async (startPhase: 'standby' | 'live') => {
    if (!b.value) return;
    setError(null);
    setHost('starting');
    captionsRef.current = new Map();
    setCaptions(captionsRef.current);
    try {
      mic.current = await Microphone.open(chosenMicrophone()); // the input chosen on the Live screen
      const s = await parley.live.start(
        { type: 'broadcast', broadcast_token: b.value.token, audio_format: 'webm', broadcast_phase: startPhase },
        (e) => {
          const next = applyCaptionEvent(captionsRef.current, e);
          if (next) {
            captionsRef.current = next;
            setCaptions(next);
          }
          if (e.action === 'phase_changed') setPhase(String((e.data as { phase?: string }).phase ?? 'live'));
          if (e.action === 'status' && (e.data.status === 'paused' || e.data.status === 'resumed'))
            setPhase(e.data.status === 'paused' ? 'paused' : 'live');
        },
      );
      session.current = s;
      s.onError((err) => {
        setError(err);
        if (err.severity === 'fatal' && err.sid === undefined) void stop();
      });
      setPhase(s.started?.phase ?? startPhase);
      mic.current.start((chunk) => s.sendAudio(chunk));
      setHost('on');
      void b.reload();
      onChanged();
    } catch (err) {
      await mic.current?.stop().catch(() => {});
      mic.current = null;
      setError(err);
      setHost('off');
    }
  };
  const stop = async () => {
    setHost('stopping');
    await endMicSession(mic.current, session.current, setError);
    session.current = null;
    mic.current = null;
    captionsRef.current = finalCaptions(captionsRef.current);
    setCaptions(captionsRef.current);
    setHost('off');
    setPhase(null);
    void b.reload();
    onChanged();
    onCreditChange();
  };
  const send = (action: 'broadcast_go_live' | 'pause' | 'resume', after: string | null) => {
    session.current?.send(action);
    if (action === 'pause') mic.current?.pause();
    if (action === 'resume') mic.current?.resume();
    if (after) setPhase(after);
  };
  const announce = (e: Event) => {
    e.preventDefault();
    if (!announcement.trim()) return;
    session.current?.send('broadcast_announcement', { message: announcement.trim() });
    setNote(`Announced: “${announcement.trim()}”`);
    setAnnouncement('');
  };
  const revoke = async () => {
    try {
      await parley.broadcasts.revoke(id);
      await b.reload();
      onChanged();
    } catch (err) {
      setError(err);
    }
  };

  const v = b.value;
  if (!v) return <ErrorNote error={b.error} />;
  const link = viewerLink(v.token);
  // While this page hosts, its own phase (it changes before the next poll); else the server's.
  const shownPhase = host === 'on' ? phase : v.phase;
  const ended = v.status === 'ended' || v.status === 'revoked';
  return (
    <Card title={v.name ?? `Broadcast ${v.token}`} id="manage">
      <div class="share">
        <QrCode text={link} label={`QR code of the viewer page ${link}`} />
        <div class="stack">
          <span class="muted">Viewer page</span>
          <a class="link" href={link} target="_blank" rel="noopener" data-testid="viewer-link">
            {link}
          </a>
          <div class="row">
            <button
              type="button"
              onClick={() =>
                navigator.clipboard?.writeText(link).then(
                  () => setCopied(true),
                  () => setCopied(false),
                )
              }
            >
              {copied ? 'Copied' : 'Copy link'}
            </button>
            <a href={`${link}/overlay`} target="_blank" rel="noopener">
              OBS overlay
            </a>
          </div>
          <div class="meters">
            <div class="meter">
              <span class="value" data-testid="viewers">
                {v.viewer_count}
              </span>
              <span class="label">Viewers (of {v.max_viewers})</span>
            </div>
            <div class="meter">
              <span class="value" data-testid="queue">
                {v.queue_count}
              </span>
              <span class="label">Waiting</span>
            </div>
            <div class="meter">
              <span class="value">{v.peak_viewers}</span>
              <span class="label">Peak</span>
            </div>
            <div class="meter">
              <span class="value" role="timer" aria-label="Time live">
                {clock(elapsed)}
              </span>
              <span class="label">Live time</span>
            </div>
          </div>
        </div>
      </div>
      <p class="meta">
        <StatusBadge status={v.status} /> {shownPhase ? <StatusBadge status={shownPhase} /> : null} {v.access_type} · speech{' '}
        {v.transcription_languages.join(', ')}
        {v.translation_languages.length ? ` · translations ${v.translation_languages.join(', ')}` : ''} · created {formatDate(v.created_at)}
      </p>
      {!ended ? (
        <div class="live-controls">
          {host === 'off' ? (
            <>
              <button type="button" onClick={() => start('standby')}>
                Start in standby (only you see captions)
              </button>
              <button type="button" class="primary" onClick={() => start('live')}>
                Start live
              </button>
            </>
          ) : null}
          {host === 'on' && phase === 'standby' ? (
            <button type="button" class="primary" onClick={() => send('broadcast_go_live', 'live')}>
              Go live
            </button>
          ) : null}
          {host === 'on' && phase === 'live' ? (
            <button type="button" onClick={() => send('pause', 'paused')}>
              Pause
            </button>
          ) : null}
          {host === 'on' && phase === 'paused' ? (
            <button type="button" onClick={() => send('resume', 'live')}>
              Resume
            </button>
          ) : null}
          {host === 'on' ? (
            <button type="button" class="danger" onClick={stop}>
              Stop broadcast
            </button>
          ) : null}
          {host === 'off' ? (
            <button type="button" class="danger" onClick={revoke}>
              Revoke
            </button>
          ) : null}
        </div>
      ) : v.task_id ? (
        <p>
          <a href={`#/library/${v.task_id}`}>The recording in the library</a>
        </p>
      ) : null}
      {host === 'on' ? (
        <form class="row" onSubmit={announce}>
          <div class="field">
            <label for="announcement">Announcement to viewers</label>
            <input
              id="announcement"
              size={40}
              value={announcement}
              onInput={(e) => setAnnouncement((e.currentTarget as HTMLInputElement).value)}
            />
          </div>
          <button type="submit">Announce</button>
        </form>
      ) : null}
      {note ? <p role="status">{note}</p> : null}
      <ErrorNote error={error} />
      {host !== 'off' || captions.size > 0 ? <CaptionList captions={captions} languages={v.translation_languages} /> : null}
    </Card>
  );
}

export function BroadcastsScreen({ onCreditChange }: { onCreditChange: () => void }) {
  const list = useLoad(async () => (await parley.broadcasts.list({ page: 1, per_page: 20 })).data);
  const [selected, setSelected] = useState<string | null>(null);
  const reloadList = useCallback(() => void list.reload(), [list.reload]);
  const current = selected ?? list.value?.find((b) => b.status === 'pending' || b.status === 'active')?.id ?? null;
  return (
    <div class="screen">
      <div class="screen-head">
        <h1>Broadcasts</h1>
      </div>
      {current ? <Manage key={current} id={current} onChanged={reloadList} onCreditChange={onCreditChange} /> : null}
      <CreateForm
        onCreated={(id) => {
          setSelected(id);
          void list.reload();
        }}
      />
      <Card title="Your broadcasts" id="broadcast-list">
        <ErrorNote error={list.error} />
        {list.value && list.value.length === 0 ? <p class="muted">No broadcasts yet.</p> : null}
        {list.value && list.value.length > 0 ? (
          <Table columns={['Name', 'Token', 'Status', 'Viewers', 'Waiting', 'Created', <span class="sr-only">Actions</span>]}>
            {list.value.map((b) => (
              <tr key={b.id}>
                <td>{b.name ?? '—'}</td>
                <td>
                  <code>{b.token}</code>
                </td>
                <td>
                  <StatusBadge status={b.status} />
                </td>
                <td class="num">{b.viewer_count}</td>
                <td class="num">{b.queue_count}</td>
                <td>{formatDate(b.created_at)}</td>
                <td>
                  <button type="button" aria-pressed={current === b.id} onClick={() => setSelected(b.id)}>
                    {current === b.id ? 'Shown' : 'Show'}
                  </button>
                </td>
              </tr>
            ))}
          </Table>
        ) : null}
      </Card>
    </div>
  );
}
