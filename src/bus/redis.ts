/**
 * The event bus over Redis pub/sub, for deployments with several processes: every process
 * subscribed to a topic receives each message (at most once, like the in-process bus).
 * One connection publishes; a second, in subscriber mode, receives and dispatches locally
 * (one SUBSCRIBE per topic per process, however many local handlers). Retained logs are
 * Redis lists written in the same MULTI as the PUBLISH, so a reader that subscribed first
 * and then reads the list misses nothing that was retained.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { MessageOf, Topic } from './topics.js';
import type { BusHandler, EventBus, RetainOptions, Unsubscribe } from './types.js';

type AnyHandler = (message: unknown, topic: string) => void;

export class RedisBus implements EventBus {
  readonly remote = true;
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly handlers = new Map<string, Set<AnyHandler>>();
  /** Per topic, the SUBSCRIBE in flight or acknowledged (later subscribers of the topic wait on it). */
  private readonly live = new Map<string, Promise<unknown>>();

  constructor(
    url: string,
    private readonly logger: Logger,
    /** Prefix for channel and key names, so deployments (or test runs) sharing a Redis stay apart. */
    private readonly prefix = 'parley:',
  ) {
    this.pub = new Redis(url, { maxRetriesPerRequest: 3, lazyConnect: false });
    this.sub = new Redis(url, { maxRetriesPerRequest: 3, lazyConnect: false });
    for (const c of [this.pub, this.sub]) c.on('error', (err) => this.logger.warn({ err }, 'redis bus connection error'));
    this.sub.on('message', (channel: string, raw: string) => this.dispatch(channel, raw));
  }

  /** Resolves once both connections are ready (start-up fails fast on a wrong REDIS_URL). */
  async ready(): Promise<void> {
    await Promise.all([this.pub.ping(), this.sub.ping()]);
  }

  private dispatch(channel: string, raw: string): void {
    const topic = channel.slice(this.prefix.length);
    const set = this.handlers.get(topic);
    if (!set?.size) return;
    let message: unknown;
    try {
      message = JSON.parse(raw);
    } catch (err) {
      this.logger.warn({ err, topic }, 'redis bus: dropped a malformed message');
      return;
    }
    for (const h of [...set]) {
      try {
        h(message, topic);
      } catch (err) {
        this.logger.error({ err, topic }, 'redis bus: handler failed');
      }
    }
  }

  private logKey(topic: string): string {
    return `${this.prefix}log:${topic}`;
  }

  async publish<T extends Topic>(topic: T, message: MessageOf<T>, options: { retain?: RetainOptions } = {}): Promise<void> {
    const raw = JSON.stringify(message);
    const channel = this.prefix + topic;
    const retain = options.retain;
    if (!retain) {
      await this.pub.publish(channel, raw);
      return;
    }
    const key = this.logKey(topic);
    const results = await this.pub
      .multi()
      .rpush(key, raw)
      .ltrim(key, -retain.max, -1)
      .expire(key, retain.ttlSeconds)
      .publish(channel, raw)
      .exec();
    const failed = results?.find(([err]) => err)?.[0];
    if (failed) throw failed;
  }

  async subscribe<T extends Topic>(topic: T, handler: BusHandler<T>): Promise<Unsubscribe> {
    let set = this.handlers.get(topic);
    if (!set) {
      set = new Set<AnyHandler>();
      this.handlers.set(topic, set);
      this.live.set(topic, this.sub.subscribe(this.prefix + topic));
    }
    const mine = set;
    const h = handler as AnyHandler;
    mine.add(h);
    const off = () => {
      mine.delete(h);
      if (mine.size === 0 && this.handlers.get(topic) === mine) {
        this.handlers.delete(topic);
        this.live.delete(topic);
        void this.sub.unsubscribe(this.prefix + topic).catch(() => {});
      }
    };
    try {
      await this.live.get(topic);
    } catch (err) {
      off();
      this.logger.error({ err, topic }, 'redis bus: subscribe failed');
      throw err;
    }
    return off;
  }

  async retained<T extends Topic>(topic: T): Promise<MessageOf<T>[]> {
    const raw = await this.pub.lrange(this.logKey(topic), 0, -1);
    const out: MessageOf<T>[] = [];
    for (const r of raw) {
      try {
        out.push(JSON.parse(r) as MessageOf<T>);
      } catch (err) {
        this.logger.warn({ err, topic }, 'redis bus: skipped a malformed retained message');
      }
    }
    return out;
  }

  async close(): Promise<void> {
    this.handlers.clear();
    this.live.clear();
    await Promise.allSettled([this.pub.quit(), this.sub.quit()]);
  }
}
