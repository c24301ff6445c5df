/**
 * SessionStreams over both bus backends: numbering, replay for late joiners (bounded to the
 * latest finals with their translations, no interims), no gap and no duplicate between the
 * replay and live events, a consistent replay however the log was cut (joiners while the
 * publishes are in flight: no translation without its final), the end, and speaker edits
 * joining the stream.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { speakerTopic } from '../../src/bus/topics.js';
import type { EventBus } from '../../src/bus/types.js';
import { createLogger } from '../../src/platform/logging.js';
import type { SessionEvent, SessionEventBody } from '../../src/stream/events.js';
import { REPLAY_FINALS, SessionStreams, type SessionSubscription } from '../../src/stream/session-streams.js';
import { busPairFactories } from '../support/buses.js';
import { until } from '../support/until.js';
import { sentence } from './support.js';

const logger = createLogger('silent');

const factories = busPairFactories();

const sidsOf = (events: SessionEvent[], event: string) =>
  events
    .filter((e) => e.event === event && (e.event !== 'result' || e.data.origin.is_final))
    .map((e) => (e.data as { sid?: number; origin?: { sid: number } }).sid ?? (e.data as { origin: { sid: number } }).origin.sid);

/**
 * Sentence `sid` with translations into es and fr. `lag`: the translations that follow this
 * final are those of the sentence before (translation takes longer than recognition).
 */
const translated = (sid: number, lag: boolean): SessionEventBody[] => {
  const [a, b, c, final] = sentence(sid, 40);
  const of = lag ? sid - 1 : sid;
  const tr = (language: string): SessionEventBody => ({
    event: 'translation',
    data: { sid: of, language, text: `${language} ${of}`, is_final: true },
  });
  return [a!, b!, c!, final!, ...(of >= 0 ? [tr('es'), tr('fr')] : [])];
};

/** Translations whose final did not come before them, as "language sid (seq)". */
const orphansIn = (events: SessionEvent[]) => {
  const finals = new Set<number>();
  const orphans: string[] = [];
  for (const e of events) {
    if (e.event === 'result' && e.data.origin.is_final) finals.add(e.data.origin.sid);
    if (e.event === 'translation' && !finals.has(e.data.sid)) orphans.push(`${e.data.language} ${e.data.sid} (seq ${e.seq})`);
  }
  return orphans;
};

describe.each(factories)('session streams ($name bus)', ({ make }) => {
  const open: EventBus[] = [];
  afterEach(async () => {
    for (const b of new Set(open.splice(0))) await b.close();
  });
  /** The owner's node and another node. */
  const nodes = async () => {
    const [a, b] = await make();
    open.push(a, b);
    return [new SessionStreams(a, logger), new SessionStreams(b, logger)] as const;
  };

  it('a late joiner gets the latest finals with their translations (no interims), then live events, each seq once, then the end', async () => {
    const [owner, other] = await nodes();
    const taskId = randomUUID();
    const pub = await owner.publisher(taskId, 1);
    // A late joiner: it comes once the 80 sentences are on the bus (a watcher there saw the
    // last one). Joining while they are still in flight is the next case.
    const watcher = await other.subscribe(taskId, () => {}, { replay: false });
    for (let sid = 0; sid < 80; sid++) for (const body of sentence(sid, 40)) pub.publish(body);
    expect(pub.lastSeq).toBe(400);
    await until(() => watcher.lastSeq === 400, 10_000, 'the 400 events on the bus');
    watcher.close();
    const got: SessionEvent[] = [];
    const sub = await other.subscribe(taskId, (e) => got.push(e));
    // The replay: the latest finals (at least REPLAY_FINALS; the log's slack for status and
    // speaker events holds a few more) and their translations, no interim.
    expect(got.some((e) => e.event === 'result' && !e.data.origin.is_final)).toBe(false);
    const replayed = sidsOf(got, 'result');
    expect(replayed.length).toBeGreaterThanOrEqual(REPLAY_FINALS);
    expect(replayed.length).toBeLessThan(80);
    expect(replayed).toEqual(Array.from({ length: replayed.length }, (_, i) => 80 - replayed.length + i));
    expect(sidsOf(got, 'translation')).toEqual(replayed);
    // Live from here on, interims included.
    for (let sid = 80; sid < 90; sid++) for (const body of sentence(sid, 40)) pub.publish(body);
    pub.end();
    await sub.ended;
    const seqs = got.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(got.filter((e) => e.seq > 400).map((e) => e.seq)).toEqual(Array.from({ length: 51 }, (_, i) => 401 + i));
    expect(got.at(-1)).toMatchObject({ event: 'status', data: { status: 'ended', task_id: taskId }, seq: 451, task_id: taskId });
    expect(sub.gaps).toBe(0);
    // After the end the publisher is gone and publishes nothing more.
    expect(owner.local(taskId)).toBeUndefined();
    expect(pub.publish({ event: 'status', data: { status: 'paused' } })).toBeNull();
  });

  it('joiners while publishes are in flight, round after round: every translation after its final, none orphaned, none missing', async () => {
    const [owner, other] = await nodes();
    const SENTENCES = 100;
    for (let round = 0; round < 12; round++) {
      const lag = round % 2 === 1;
      const taskId = randomUUID();
      // Two translation languages: the log keeps 170 events, 3 a sentence, so it is full from sentence 57 on.
      const pub = await owner.publisher(taskId, 2);
      const joiners: { got: SessionEvent[]; sub: Promise<SessionSubscription> }[] = [];
      for (let sid = 0; sid < SENTENCES; sid++) {
        for (const body of translated(sid, lag)) pub.publish(body);
        // Every few sentences a late joiner on the other node, not waited for: its replay is
        // read while the publishes go on (on Redis, between any two of them).
        if (sid >= 60 && sid % 5 === 0) {
          const got: SessionEvent[] = [];
          joiners.push({ got, sub: other.subscribe(taskId, (e) => got.push(e)) });
        }
        await new Promise((r) => setImmediate(r));
      }
      if (lag) for (const body of translated(SENTENCES, true).slice(4)) pub.publish(body);
      pub.end();
      for (const [i, { got, sub }] of joiners.entries()) {
        const s = await sub;
        await s.ended;
        const where = `round ${round}${lag ? ' (translations lag)' : ''}, joiner ${i}`;
        expect(orphansIn(got), where).toEqual([]);
        const seqs = got.map((e) => e.seq);
        expect(seqs, where).toEqual([...seqs].sort((x, y) => x - y));
        expect(new Set(seqs).size, where).toBe(seqs.length);
        // From its first final on, every sentence with both its translations.
        const finals = sidsOf(got, 'result');
        expect(finals.length, where).toBeGreaterThanOrEqual(REPLAY_FINALS);
        expect(finals, where).toEqual(Array.from({ length: finals.length }, (_, k) => SENTENCES - finals.length + k));
        const translations = got.flatMap((e) => (e.event === 'translation' ? [`${e.data.sid} ${e.data.language}`] : []));
        expect(translations.sort(), where).toEqual(finals.flatMap((sid) => [`${sid} es`, `${sid} fr`]).sort());
        expect(got.at(-1), where).toMatchObject({ event: 'status', data: { status: 'ended' } });
        expect(s.gaps, where).toBe(0);
      }
    }
  }, 120_000);

  it('a subscriber joining after the end gets the replay ending with `status: ended`', async () => {
    const [owner, other] = await nodes();
    const taskId = randomUUID();
    const pub = await owner.publisher(taskId, 0);
    for (const body of sentence(0, 40)) pub.publish(body);
    pub.end();
    const got: SessionEvent[] = [];
    const sub = await other.subscribe(taskId, (e) => got.push(e));
    await sub.ended;
    expect(got.map((e) => e.event)).toEqual(['result', 'translation', 'status']);
    expect(got.at(-1)?.data).toEqual({ status: 'ended', task_id: taskId });
  });

  it('speaker edits published for the task join the stream with the next seq, on every node', async () => {
    const [owner, other] = await nodes();
    const taskId = randomUUID();
    const pub = await owner.publisher(taskId, 0);
    const local: SessionEvent[] = [];
    pub.attach((e) => local.push(e));
    const remote: SessionEvent[] = [];
    await other.subscribe(taskId, (e) => remote.push(e));
    pub.publish({ event: 'status', data: { status: 'paused' } });
    // A REST speaker edit, published by whichever node served it.
    const bus = open[1] as EventBus;
    await bus.publish(speakerTopic(taskId), { event: 'speaker_renamed', data: { speaker_id: '1', new_label: 'Ana', affected_sids: [0] } });
    await until(() => remote.length === 2, 5000, 'the edit on the other node');
    expect(local.map((e) => [e.seq, e.event])).toEqual([
      [1, 'status'],
      [2, 'speaker_renamed'],
    ]);
    expect(remote).toEqual(local);
    pub.end();
  });
});
