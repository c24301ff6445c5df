/**
 * How a session gets its recording: `start` (validation, the key's checks again, plan and
 * credit, then the recording begins) or `start` with `resume_token` (the session of a dropped
 * socket continues on this one: registry.ts attaches it; from another process: the fleet).
 * Any refusal is an error message; the socket stays open for another start.
 */
import { AppError } from '../../platform/errors/app-error.js';
import { unknownTemplate } from '../actions.js';
import { channelError } from '../channel-spec.js';
import type { LiveFleet } from '../live/fleet.js';
import type { HostedAudience } from '../ports.js';
import { validateStart } from '../start.js';
import type { SessionRegistry } from './registry.js';
import type { LiveSession } from './session.js';
import { welcome } from './welcome.js';

const ws = { variant: 'websocket' as const };

/** What opening a session needs beyond the session's own ports. */
export interface OpeningHost {
  /** The key is asked again (disabled, expired, IP rules) before a recording starts or resumes. */
  checkKey(): Promise<void>;
  registry?: SessionRegistry;
  /** Recordings of other processes (src/realtime/live): a resume of one takes it over here. */
  fleet?: LiveFleet;
}

/**
 * A start on `session`: the session it ends up in (another one when a resume attached this
 * socket to it), or null when the start was refused or failed (the error was sent).
 */
export async function openSession(session: LiveSession, host: OpeningHost, sent: Record<string, unknown>): Promise<LiveSession | null> {
  const asked = session.drive({ kind: 'start' });
  // Refused: a recording runs or a start is already under way (the error was sent).
  if (asked.effects.length > 0) return null;
  // After an ending error (silence timeout, a limit) or a stop, the previous recording is
  // still being finalized: the new start waits for it, so the client sees `status: ended` and
  // `task_complete` before `session_started`.
  if (asked.state.kind === 'finishing') {
    await session.settled();
    if (session.life.kind !== 'starting') return null;
  }
  try {
    if (session.socket.gone) return null;
    if (sent.resume_token !== undefined && sent.resume_token !== null) return await resume(session, host, sent.resume_token);
    return (await begin(session, host, sent)) ? session : null;
  } finally {
    // Refused or failed: the socket waits for another start.
    if (session.life.kind === 'starting') session.drive({ kind: 'start_failed' });
  }
}

async function begin(session: LiveSession, opening: OpeningHost, sent: Record<string, unknown>): Promise<boolean> {
  const { ports, principal, limits, resume } = session.deps;
  const socket = session.socket;
  let data = sent;
  if (data.type === 'broadcast' && data.recognition_mode === 'multi_channel') {
    socket.sendError(
      channelError('multichannel_broadcast_not_allowed', 'Broadcasts cannot use multi_channel.', { field: 'recognition_mode' }),
    );
    return false;
  }
  // A broadcast's recording runs with its channel's settings (the audiences port prepares them).
  let host: HostedAudience | null = null;
  if (data.type === 'broadcast' && ports.audiences) {
    const prepared = await ports.audiences.prepare(principal, data);
    if (!prepared.ok) {
      socket.sendError(prepared.error);
      return false;
    }
    host = prepared.host;
    data = prepared.startData;
  }
  const checked = validateStart(data, ports.engines);
  if (!checked.ok) {
    socket.sendError(checked.error);
    return false;
  }
  const badTemplate = unknownTemplate(checked.start, ports.templates);
  if (badTemplate) {
    socket.sendError(badTemplate);
    return false;
  }
  for (const w of checked.warnings) socket.sendError(w);
  await opening.checkKey();
  const start = host ? { ...checked.start, type: 'broadcast' as const } : checked.start;
  await ports.admit(principal, start);
  await host?.claim();
  session.claim(host);
  // A broadcast host reconnects with its broadcast token instead (the audiences port).
  const token = host ? null : (resume?.issue() ?? null);
  const rec = session.newRecording(start, token);
  try {
    await rec.begin();
  } catch (err) {
    await rec.abandon();
    session.claim(null);
    await host?.release();
    throw err;
  }
  session.own(rec);
  // The client left while the recording was being set up: nothing was recorded, it ends at once.
  if (session.drive({ kind: 'started' }).state.kind !== 'running') return true;
  socket.stopIdleClose();
  // Broadcasts are exempt from the silence auto-end (spec).
  session.run({ token, rawStart: data, tts: start.tts, silenceSeconds: host ? null : checked.start.silenceTimeoutSeconds });
  // The broadcast subscribes to the session stream; phase rules decide what reaches its viewers.
  if (host) await session.hostBroadcast(host);
  session.emit('session_started', {
    session_id: rec.sessionId,
    task_id: rec.taskId,
    recording_type: start.type,
    recognition_mode: start.recognitionMode,
    ...(rec.channels
      ? {
          channel_mode: 'interleaved',
          channels: rec.channels.specs.map((s) => ({ channel_id: s.channelId, language: s.language, label: s.label })),
        }
      : {}),
    message: 'Recording started.',
    ...(token ? { resume_token: token, resume_grace_seconds: limits.disconnectGraceMs / 1000 } : {}),
    ...(host ? await host.startedFields() : {}),
  });
  return true;
}

/**
 * start with `resume_token`: the recording of a dropped (or still open) socket of the same key
 * continues on this one. `resume_ok` first, then the session events the client missed while
 * away, then live events, in order.
 */
async function resume(session: LiveSession, host: OpeningHost, token: unknown): Promise<LiveSession | null> {
  const directory = session.deps.resume;
  if (!directory || !host.registry) {
    session.socket.sendError(new AppError('resume_unavailable', { ...ws, details: { action: 'start', reason: 'not_supported' } }));
    return null;
  }
  await host.checkKey();
  // A recording this process does not hold (any more): through the fleet (src/realtime/live).
  if (host.fleet && typeof token === 'string' && directory.wellFormed(token) && !directory.knows(token)) {
    return (await fromFleet(session, host.fleet, token)) ? session : null;
  }
  const found = directory.find<LiveSession>(token, session.deps.principal);
  if (found instanceof AppError) {
    session.socket.sendError(found);
    return null;
  }
  host.registry.attach(found, session.socket);
  return found;
}

/** The recording is taken over from another process (or the store, its process dead) and goes on in this session. */
async function fromFleet(session: LiveSession, fleet: LiveFleet, token: string): Promise<boolean> {
  const located = await fleet.locate(token, session.deps.principal);
  if (located instanceof AppError) {
    session.socket.sendError(located);
    return false;
  }
  const { row, snap } = located;
  const rec = session.newRecording(snap.start, token, snap.sessionId);
  try {
    await rec.continueFrom(row, snap, true);
  } catch (err) {
    // Another process may try within the grace (e.g. every recognizer busy here).
    await rec.discard();
    await fleet.giveBack(row.task_id);
    throw err;
  }
  session.own(rec, { rawStart: snap.rawStart, glossary: snap.glossary, token });
  session.drive({ kind: 'started', paused: snap.status === 'paused', resumed: true });
  welcome(session, rec, snap.gap);
  // In-session TTS as it was on the other process (set_tts and tts_mode changes kept).
  if (snap.tts) session.startSpeech(rec, snap.tts);
  return true;
}
