/**
 * The session lifecycle as a table: every state against every event, with the next state and
 * the effects in order (errors by their code). A row per state and a column per event: a new
 * state or event without its expectations fails the coverage test below (and the types).
 */
import { describe, expect, it } from 'vitest';
import {
  type Effect,
  isIdle,
  isLive,
  type LifecycleEvent,
  type LifecycleEventKind,
  type LifecycleKind,
  type LifecycleState,
  publicState,
  step,
} from '../../../src/realtime/session/lifecycle.js';

const STATES = {
  connected: { kind: 'connected' },
  starting: { kind: 'starting', socketLost: false },
  starting_lost: { kind: 'starting', socketLost: true },
  running: { kind: 'running', draining: false },
  running_d: { kind: 'running', draining: true },
  paused: { kind: 'paused', draining: false },
  paused_d: { kind: 'paused', draining: true },
  away: { kind: 'away', paused: false, draining: false },
  away_paused: { kind: 'away', paused: true, draining: false },
  away_paused_d: { kind: 'away', paused: true, draining: true },
  handing_off: { kind: 'handing_off' },
  finishing: { kind: 'finishing', draining: false, startWaiting: false },
  finishing_waiting: { kind: 'finishing', draining: false, startWaiting: true },
  finishing_d: { kind: 'finishing', draining: true, startWaiting: false },
  finishing_waiting_d: { kind: 'finishing', draining: true, startWaiting: true },
  ended: { kind: 'ended' },
} satisfies Record<string, LifecycleState>;
type Name = keyof typeof STATES;

/** One event of each kind (started also as paused, and as a resume that takes a recording over). */
const EVENTS = {
  start: { kind: 'start' },
  started: { kind: 'started' },
  started_paused: { kind: 'started', paused: true },
  resumed: { kind: 'started', resumed: true },
  resumed_paused: { kind: 'started', resumed: true, paused: true },
  start_failed: { kind: 'start_failed' },
  pause: { kind: 'pause' },
  resume: { kind: 'resume' },
  stop: { kind: 'stop' },
  audio: { kind: 'audio', via: 'binary' },
  socket_lost: { kind: 'socket_lost' },
  socket_attached: { kind: 'socket_attached' },
  hand_over: { kind: 'hand_over' },
  handed_over: { kind: 'handed_over' },
  taken_away: { kind: 'taken_away' },
  end: { kind: 'end' },
  silence_timeout: { kind: 'silence_timeout', silenceSeconds: 30 },
  force_end: { kind: 'force_end', taskId: 'task-1' },
  grace_expired: { kind: 'grace_expired' },
  drain: { kind: 'drain' },
  drain_deadline: { kind: 'drain_deadline' },
  finished: { kind: 'finished' },
} satisfies Record<string, LifecycleEvent>;
type EventName = keyof typeof EVENTS;
// Every event kind of the union has a column (a new kind fails here at compile time).
const _everyKind: Record<LifecycleEventKind, EventName> = {
  start: 'start',
  started: 'started',
  start_failed: 'start_failed',
  pause: 'pause',
  resume: 'resume',
  stop: 'stop',
  audio: 'audio',
  socket_lost: 'socket_lost',
  socket_attached: 'socket_attached',
  hand_over: 'hand_over',
  handed_over: 'handed_over',
  taken_away: 'taken_away',
  end: 'end',
  silence_timeout: 'silence_timeout',
  force_end: 'force_end',
  grace_expired: 'grace_expired',
  drain: 'drain',
  drain_deadline: 'drain_deadline',
  finished: 'finished',
};
const _everyState: Record<LifecycleKind, Name> = {
  connected: 'connected',
  starting: 'starting',
  running: 'running',
  paused: 'paused',
  away: 'away',
  handing_off: 'handing_off',
  finishing: 'finishing',
  ended: 'ended',
};

/** An effect in a word: `error:<code>`, `silence:pause`, `finalize:forced:ended`, `close:4010`... */
function word(e: Effect): string {
  switch (e.kind) {
    case 'send_error':
      return `error:${e.error.code}`;
    case 'publish_status':
      return `status:${e.status}`;
    case 'broadcast_control':
      return `broadcast:${e.action}`;
    case 'silence':
      return `silence:${e.op}`;
    case 'finalize':
      return `finalize:${e.finish}:${e.why}`;
    case 'close_socket':
      return `close:${e.code}`;
    case 'drain_wait':
      return e.freezeBroadcast ? 'drain_wait:freeze' : 'drain_wait';
    default:
      return e.kind;
  }
}

// Shorthands for the columns many rows share.
const NOT_STARTED = 'error:session_not_started';
const BUSY = 'error:invalid_data';
const NO_RESUME = 'error:resume_unavailable';
const STOP = 'broadcast:stop, status:stopping, finalize:normal:ended';
const MOVE = 'cancel_grace, silence:stop, move_out, close:4010';
const HAND = 'cancel_grace, silence:stop, park';
const TAKEN = 'cancel_grace, silence:stop, let_go, close:4010';
const LOST = 'silence:pause, broadcast_host_dropped, keep_gap, arm_grace';
const FORCED = 'error:session_force_ended, cancel_grace, finalize:forced:ended';
const SILENT = 'error:stt_silence_timeout, finalize:normal:ended';
const SHUTDOWN_IDLE = 'error:service_shutdown, close_soon';
const END = 'finalize:normal:ended';

/** `next` or `next | effect, effect`: names of STATES. */
type Cell = string;
type Row = Record<EventName, Cell>;

/** A state where nothing runs: only start, drain and the refusals do anything. */
function idleRow(self: Name): Row {
  return {
    start: 'starting',
    started: self,
    started_paused: self,
    resumed: self,
    resumed_paused: self,
    start_failed: self,
    pause: `${self} | ${NOT_STARTED}`,
    resume: `${self} | ${NOT_STARTED}`,
    stop: `${self} | ${NOT_STARTED}`,
    audio: `${self} | ${NOT_STARTED}`,
    socket_lost: self,
    socket_attached: `${self} | ${NO_RESUME}`,
    hand_over: `${self} | ${NO_RESUME}`,
    handed_over: self,
    taken_away: self,
    end: self,
    silence_timeout: self,
    force_end: self,
    grace_expired: self,
    drain: `${self} | ${SHUTDOWN_IDLE}`,
    drain_deadline: self,
    finished: self,
  };
}

function startingRow(self: 'starting' | 'starting_lost'): Row {
  const lost = self === 'starting_lost';
  return {
    ...idleRow(self),
    start: `${self} | ${BUSY}`,
    // The client left during the set-up: the recording ends at once (a claimed broadcast is given back).
    started: lost ? `finishing | broadcast_release, ${END}` : 'running',
    started_paused: lost ? `finishing | broadcast_release, ${END}` : 'paused',
    // A resume whose client left meanwhile: the session waits for it again, inside a new grace.
    resumed: lost ? 'away | keep_gap, arm_grace' : 'running',
    resumed_paused: lost ? 'away_paused | keep_gap, arm_grace' : 'paused',
    start_failed: 'connected',
    socket_lost: 'starting_lost',
  };
}

function liveRow(self: 'running' | 'running_d' | 'paused' | 'paused_d'): Row {
  const paused = self.startsWith('paused');
  const d = self.endsWith('_d');
  const fin = d ? 'finishing_d' : 'finishing';
  return {
    start: `${self} | ${BUSY}`,
    started: self,
    started_paused: self,
    resumed: self,
    resumed_paused: self,
    start_failed: self,
    pause: paused
      ? `${self} | error:session_already_paused`
      : `${d ? 'paused_d' : 'paused'} | broadcast:pause, silence:pause, status:paused`,
    resume: paused
      ? `${d ? 'running_d' : 'running'} | broadcast:resume, silence:resume, status:started`
      : `${self} | error:session_not_paused`,
    stop: `${fin} | ${STOP}`,
    // Audio while paused is dropped without an error.
    audio: paused ? self : `${self} | record_audio`,
    socket_lost: `${paused ? (d ? 'away_paused_d' : 'away_paused') : d ? 'away_d' : 'away'} | ${LOST}`,
    // The client saw the drop before the server: the old socket is closed, the session goes on as it was.
    socket_attached: `${paused ? 'paused' : 'running'} | ${MOVE}`,
    hand_over: `handing_off | ${HAND}`,
    handed_over: self,
    taken_away: `ended | ${TAKEN}`,
    end: `${fin} | ${END}`,
    silence_timeout: `${fin} | ${SILENT}`,
    force_end: `${fin} | ${FORCED}`,
    grace_expired: self,
    drain: `${paused ? 'paused_d' : 'running_d'} | error:service_shutdown, drain_wait:freeze`,
    drain_deadline: `${fin} | ${END}`,
    finished: self,
  };
}

function awayRow(self: 'away' | 'away_paused' | 'away_paused_d'): Row {
  const fin = self.endsWith('_d') ? 'finishing_d' : 'finishing';
  return {
    start: `${self} | ${BUSY}`,
    started: self,
    started_paused: self,
    resumed: self,
    resumed_paused: self,
    start_failed: self,
    // No socket to send them: every command is refused as if nothing ran.
    pause: `${self} | ${NOT_STARTED}`,
    resume: `${self} | ${NOT_STARTED}`,
    stop: `${self} | ${NOT_STARTED}`,
    audio: `${self} | ${NOT_STARTED}`,
    socket_lost: self,
    socket_attached: `${self === 'away' ? 'running' : 'paused'} | ${MOVE}`,
    hand_over: `handing_off | ${HAND}`,
    handed_over: self,
    taken_away: `ended | ${TAKEN}`,
    end: `${fin} | ${END}`,
    // Time away is not silence.
    silence_timeout: self,
    force_end: `${fin} | ${FORCED}`,
    grace_expired: `${fin} | finalize:normal:grace_expired`,
    drain: `finishing_d | error:service_shutdown, cancel_grace, ${END}, drain_wait`,
    drain_deadline: `${fin} | ${END}`,
    finished: self,
  };
}

/** Finalizing or parking: commands are refused, resumes are refused, a start may wait (finishing only). */
function windingDownRow(self: 'handing_off' | 'finishing' | 'finishing_waiting' | 'finishing_d' | 'finishing_waiting_d'): Row {
  const row: Row = {
    ...idleRow(self),
    start: `${self} | ${BUSY}`,
    force_end: `${self} | error:session_force_ended`,
  };
  if (self === 'handing_off') return { ...row, handed_over: `ended | close:4010`, drain: `${self} | ${SHUTDOWN_IDLE}` };
  const waiting = self.includes('waiting');
  const d = self.endsWith('_d');
  return {
    ...row,
    start: waiting ? `${self} | ${BUSY}` : d ? 'finishing_waiting_d' : 'finishing_waiting',
    drain: `${waiting ? 'finishing_waiting_d' : 'finishing_d'} | error:service_shutdown, drain_wait`,
    finished: d ? 'ended | close:1001' : waiting ? 'starting | close_when_idle' : 'ended | close_when_idle',
  };
}

const TABLE: Record<Name, Row> = {
  connected: idleRow('connected'),
  ended: { ...idleRow('ended') },
  starting: startingRow('starting'),
  starting_lost: startingRow('starting_lost'),
  running: liveRow('running'),
  running_d: liveRow('running_d'),
  paused: liveRow('paused'),
  paused_d: liveRow('paused_d'),
  away: awayRow('away'),
  away_paused: awayRow('away_paused'),
  away_paused_d: awayRow('away_paused_d'),
  handing_off: windingDownRow('handing_off'),
  finishing: windingDownRow('finishing'),
  finishing_waiting: windingDownRow('finishing_waiting'),
  finishing_d: windingDownRow('finishing_d'),
  finishing_waiting_d: windingDownRow('finishing_waiting_d'),
};

const NAMED: Record<string, LifecycleState> = {
  ...STATES,
  away_d: { kind: 'away', paused: false, draining: true },
};

function expected(cell: Cell): { state: LifecycleState; effects: string[] } {
  const [next, effects = ''] = cell.split('|').map((p) => p.trim());
  const state = NAMED[next ?? ''];
  if (!state) throw new Error(`no state named ${next}`);
  return { state, effects: effects ? effects.split(',').map((w) => w.trim()) : [] };
}

describe('session lifecycle: every state x every event', () => {
  it('the table covers every state kind and every event kind', () => {
    const kinds = new Set(Object.values(STATES).map((s) => s.kind));
    expect([...kinds].sort()).toEqual(Object.keys(_everyState).sort());
    for (const row of Object.values(TABLE)) expect(Object.keys(row).sort()).toEqual(Object.keys(EVENTS).sort());
    const eventKinds = new Set(Object.values(EVENTS).map((e) => e.kind));
    expect([...eventKinds].sort()).toEqual(Object.keys(_everyKind).sort());
  });

  for (const [name, row] of Object.entries(TABLE) as [Name, Row][]) {
    describe(name, () => {
      for (const [eventName, cell] of Object.entries(row) as [EventName, Cell][]) {
        it(`${eventName} -> ${cell}`, () => {
          const out = step(STATES[name], EVENTS[eventName]);
          const want = expected(cell);
          expect(out.state).toEqual(want.state);
          expect(out.effects.map(word)).toEqual(want.effects);
        });
      }
    });
  }
});

describe('session lifecycle: what the effects carry', () => {
  it('errors are the websocket AppErrors the client is sent, with their details', () => {
    const [pause] = step(STATES.connected, EVENTS.pause).effects;
    expect(pause).toMatchObject({
      kind: 'send_error',
      error: { code: 'session_not_started', variant: 'websocket', details: { action: 'pause' } },
    });
    const [audio] = step(STATES.ended, { kind: 'audio', via: 'json' }).effects;
    expect(audio).toMatchObject({
      error: {
        code: 'session_not_started',
        message: 'No recording is running: send start first.',
        details: { message_type: 'voice-translation', action: 'audio' },
      },
    });
    const [binary] = step(STATES.connected, EVENTS.audio).effects;
    expect(binary).toMatchObject({ error: { details: { message_type: 'binary', action: 'audio' } } });
    const [busy] = step(STATES.paused, EVENTS.start).effects;
    expect(busy).toMatchObject({ error: { code: 'invalid_data', details: { action: 'start', state: 'paused' } } });
    const [forced] = step(STATES.running, EVENTS.force_end).effects;
    expect(forced).toMatchObject({ error: { code: 'session_force_ended', details: { task_id: 'task-1' } } });
    const [silent] = step(STATES.paused, EVENTS.silence_timeout).effects;
    expect(silent).toMatchObject({ error: { code: 'stt_silence_timeout', details: { silence_seconds: 30 } } });
    const [refused] = step(STATES.finishing, EVENTS.socket_attached).effects;
    expect(refused).toMatchObject({ error: { code: 'resume_unavailable', details: { action: 'start', reason: 'recording_ending' } } });
  });

  it('the sockets it closes say why', () => {
    expect(step(STATES.running, EVENTS.socket_attached).effects.at(-1)).toEqual({
      kind: 'close_socket',
      code: 4010,
      reason: 'session resumed on another connection',
    });
    expect(step(STATES.away, EVENTS.taken_away).effects.at(-1)).toEqual({
      kind: 'close_socket',
      code: 4010,
      reason: 'session taken over by another process',
    });
    expect(step(STATES.finishing_d, EVENTS.finished).effects).toEqual([{ kind: 'close_socket', code: 1001, reason: 'service shutdown' }]);
  });

  it('a whole session: start, pause, drop, resume, stop, finalized, and a second start on the same socket', () => {
    const events: LifecycleEvent[] = [
      EVENTS.start,
      EVENTS.started,
      EVENTS.pause,
      EVENTS.socket_lost,
      EVENTS.socket_attached,
      EVENTS.resume,
      EVENTS.stop,
      EVENTS.start,
      EVENTS.finished,
      EVENTS.started,
    ];
    let s: LifecycleState = STATES.connected;
    const kinds: string[] = [];
    for (const e of events) {
      s = step(s, e).state;
      kinds.push(s.kind === 'away' && s.paused ? 'away(paused)' : s.kind);
    }
    expect(kinds).toEqual([
      'starting',
      'running',
      'paused',
      'away(paused)',
      'paused',
      'running',
      'finishing',
      'finishing',
      'starting',
      'running',
    ]);
  });
});

describe('session lifecycle: as clients and the connection see it', () => {
  it('publicState keeps the protocol names (health state, start refusals)', () => {
    const seen = Object.fromEntries(Object.entries(STATES).map(([n, s]) => [n, publicState(s)]));
    expect(seen).toEqual({
      connected: 'connected',
      starting: 'connected',
      starting_lost: 'connected',
      running: 'started',
      running_d: 'started',
      paused: 'paused',
      paused_d: 'paused',
      away: 'started',
      away_paused: 'paused',
      away_paused_d: 'paused',
      handing_off: 'stopping',
      finishing: 'stopping',
      finishing_waiting: 'stopping',
      finishing_d: 'stopping',
      finishing_waiting_d: 'stopping',
      ended: 'connected',
    });
  });

  it('isLive: a recording runs or waits for its client; isIdle: a start may begin', () => {
    const live = Object.entries(STATES)
      .filter(([, s]) => isLive(s))
      .map(([n]) => n);
    expect(live).toEqual(['running', 'running_d', 'paused', 'paused_d', 'away', 'away_paused', 'away_paused_d']);
    const idle = Object.entries(STATES)
      .filter(([, s]) => isIdle(s))
      .map(([n]) => n);
    expect(idle).toEqual(['connected', 'ended']);
  });

  it('step never changes the state it is given', () => {
    for (const s of Object.values(STATES)) {
      const before = JSON.stringify(s);
      for (const e of Object.values(EVENTS)) step(s, e);
      expect(JSON.stringify(s)).toBe(before);
    }
  });
});
