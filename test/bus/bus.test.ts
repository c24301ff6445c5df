/**
 * One behaviour suite for both bus backends (in-process and Redis): typed topics, delivery
 * order and copies, subscribe awaited until live (no message published after it resolves is
 * missed, with no sleep), unsubscribe, and the retained log (bounded, ordered, expiring,
 * written with the publish so subscribe-then-read misses nothing).
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { InProcessBus } from '../../src/bus/in-process.js';
import { RedisBus } from '../../src/bus/redis.js';
import {
  CREDIT_EXHAUSTED,
  CREDIT_LOW,
  type CreditLowEvent,
  type MessageOf,
  type SpeakerEvent,
  sessionTopic,
  speakerTopic,
  type Topic,
} from '../../src/bus/topics.js';
import type { EventBus } from '../../src/bus/types.js';
import type { SessionEvent } from '../../src/stream/events.js';
import { busPairFactories } from '../support/buses.js';
import { testRedisUrl } from '../support/services.js';
import { until } from '../support/until.js';

const redisUrl = testRedisUrl();

const factories = busPairFactories();

async function collect<T extends Topic>(bus: EventBus, topic: T): Promise<MessageOf<T>[]> {
  const got: MessageOf<T>[] = [];
  await bus.subscribe(topic, (m) => got.push(m));
  return got;
}

const low = (n: number): CreditLowEvent => ({ accountId: `a${n}`, balance: n, threshold: 50, at: '2026-01-01T00:00:00.000Z' });
const final = (taskId: string, seq: number): SessionEvent => ({
  seq,
  task_id: taskId,
  event: 'translation',
  data: { sid: seq, language: 'es', text: `frase ${seq}`, is_final: true },
});

describe.each(factories)('event bus: $name', ({ name, make }) => {
  const open: EventBus[] = [];
  afterEach(async () => {
    for (const b of new Set(open.splice(0))) await b.close();
  });
  const buses = async () => {
    const pair = await make();
    open.push(...pair);
    return pair;
  };

  it('a message published right after subscribe resolved reaches it, on the same node and on another', async () => {
    const [a, b] = await buses();
    const here = await collect(a, CREDIT_LOW);
    const there = await collect(b, CREDIT_LOW);
    await a.publish(CREDIT_LOW, low(1));
    await until(() => here.length === 1 && there.length === 1);
    expect(there).toEqual([low(1)]);
  });

  it('delivers to every subscriber of a topic, in publish order, as copies; other topics stay apart', async () => {
    const [a, b] = await buses();
    const s1 = await collect(b, CREDIT_LOW);
    const s2 = await collect(b, CREDIT_LOW);
    const other = await collect(b, CREDIT_EXHAUSTED);
    const sent = Array.from({ length: 50 }, (_, i) => low(i));
    for (const m of sent) await a.publish(CREDIT_LOW, m);
    await until(() => s1.length === 50 && s2.length === 50);
    expect(s1).toEqual(sent);
    expect(s2).toEqual(sent);
    expect(s1[0]).not.toBe(sent[0]);
    expect(other).toEqual([]);
  });

  it('stops delivering after unsubscribe; other subscribers of the topic keep theirs', async () => {
    const [a, b] = await buses();
    const topic = speakerTopic('t1');
    const got: unknown[] = [];
    const off = await b.subscribe(topic, (m) => got.push(m));
    const stays = await collect(b, topic);
    const edit: SpeakerEvent = { event: 'speaker_renamed', data: { speaker_id: '1', new_label: 'Ana', affected_sids: [0] } };
    await a.publish(topic, edit);
    await until(() => got.length === 1);
    off();
    await a.publish(topic, edit);
    await until(() => stays.length === 2);
    // The second message reached the remaining subscriber, so it had every chance to reach the first.
    expect(got).toEqual([edit]);
  });

  it('retains the latest `max` messages of a topic, oldest first; unretained messages are not kept', async () => {
    const [a, b] = await buses();
    const topic = sessionTopic(randomUUID());
    for (let seq = 1; seq <= 30; seq++) await a.publish(topic, final('t', seq), { retain: { max: 10, ttlSeconds: 60 } });
    await a.publish(topic, { ...final('t', 31), event: 'result', data: { origin: interimOrigin() } });
    expect((await b.retained(topic)).map((e) => e.seq)).toEqual([21, 22, 23, 24, 25, 26, 27, 28, 29, 30]);
    expect(await b.retained(sessionTopic(randomUUID()))).toEqual([]);
  });

  it('subscribe, then read the retained log: every retained message is seen while publishing goes on', async () => {
    const [a, b] = await buses();
    const topic = sessionTopic(randomUUID());
    const publishing = (async () => {
      for (let seq = 1; seq <= 300; seq++) await a.publish(topic, final('t', seq), { retain: { max: 1000, ttlSeconds: 60 } });
    })();
    await until(() => true);
    const live = await collect(b, topic);
    const replay = await b.retained(topic);
    await publishing;
    await until(() => (live.at(-1)?.seq ?? 0) === 300);
    const seen = new Set([...replay, ...live].map((e) => e.seq));
    expect(seen.size).toBe(300);
  });

  it.skipIf(name !== 'redis')('a retained log expires after its ttl', async () => {
    const [a, b] = await buses();
    const topic = sessionTopic(randomUUID());
    await a.publish(topic, final('t', 1), { retain: { max: 10, ttlSeconds: 1 } });
    expect(await b.retained(topic)).toHaveLength(1);
    const t0 = Date.now();
    while ((await b.retained(topic)).length > 0) {
      if (Date.now() - t0 > 5000) throw new Error('not expired');
      await new Promise((r) => setTimeout(r, 100));
    }
  });
});

function interimOrigin() {
  return {
    sid: 0,
    language: 'en',
    text: 'hel',
    is_final: false,
    speaker_id: null,
    detected_language: null,
    start_time: '00:00',
    end_ms: 0,
  };
}

describe('in-process retained log', () => {
  it('expires after its ttl by the injected clock', async () => {
    let now = 1_000_000;
    const bus = new InProcessBus(() => now);
    const topic = sessionTopic('t');
    await bus.publish(topic, final('t', 1), { retain: { max: 10, ttlSeconds: 60 } });
    now += 59_000;
    expect(await bus.retained(topic)).toHaveLength(1);
    now += 2_000;
    expect(await bus.retained(topic)).toEqual([]);
  });
});

describe.skipIf(!redisUrl)('composition root', () => {
  it('REDIS_URL selects the Redis bus and rate limiter; two app processes share events', async () => {
    const { startTestApp } = await import('../support/app.js');
    const a = await startTestApp({ env: { REDIS_URL: redisUrl! } });
    const b = await startTestApp({ env: { REDIS_URL: redisUrl! } });
    try {
      expect(a.app.deps.bus).toBeInstanceOf(RedisBus);
      const topic = speakerTopic(randomUUID());
      const got = await collect(b.app.deps.bus, topic);
      const edit: SpeakerEvent = { event: 'speaker_renamed', data: { speaker_id: '1', new_label: 'Ana', affected_sids: [] } };
      await a.app.deps.bus.publish(topic, edit);
      await until(() => got.length === 1);
      expect(got).toEqual([edit]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
