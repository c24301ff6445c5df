/**
 * The event bus over Redis pub/sub, for deployments with several processes: every process
 * subscribed to a topic receives each message (at most once, like the in-process bus).
 * One connection publishes; a second, in subscriber mode, receives and dispatches locally.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { BusHandler, EventBus } from './types.js';

export class RedisBus implements EventBus {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly handlers = new Map<string, Set<BusHandler>>();

  constructor(
    url: string,
    private readonly logger: Logger,
    /** Prefix for channel names, so deployments (or test runs) sharing a Redis stay apart. */
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

  async publish(topic: string, message: unknown): Promise<void> {
    await this.pub.publish(this.prefix + topic, JSON.stringify(message));
  }

  subscribe(topic: string, handler: BusHandler): () => void {
    const set = this.handlers.get(topic) ?? new Set<BusHandler>();
    if (!this.handlers.has(topic)) {
      this.handlers.set(topic, set);
      void this.sub
        .subscribe(this.prefix + topic)
        .catch((err: unknown) => this.logger.error({ err, topic }, 'redis bus: subscribe failed'));
    }
    set.add(handler);
    return () => {
      set.delete(handler);
      if (set.size === 0 && this.handlers.get(topic) === set) {
        this.handlers.delete(topic);
        void this.sub.unsubscribe(this.prefix + topic).catch(() => {});
      }
    };
  }

  async close(): Promise<void> {
    this.handlers.clear();
    await Promise.allSettled([this.pub.quit(), this.sub.quit()]);
  }
}
