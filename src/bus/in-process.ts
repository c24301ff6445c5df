import type { MessageOf, Topic } from './topics.js';
import type { BusHandler, EventBus, RetainOptions, Unsubscribe } from './types.js';

type AnyHandler = (message: unknown, topic: string) => void;

/** A retained log: messages as JSON text (read back as copies, like Redis). */
interface Log {
  items: string[];
  expiresAt: number;
}

/** The embedded bus: handlers run on the next tick, so a publisher never waits on them. */
export class InProcessBus implements EventBus {
  readonly remote = false;
  private readonly handlers = new Map<string, Set<AnyHandler>>();
  private readonly logs = new Map<string, Log>();
  private nextSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async publish<T extends Topic>(topic: T, message: MessageOf<T>, options: { retain?: RetainOptions } = {}): Promise<void> {
    // Through JSON so subscribers see what a networked bus would deliver.
    const raw = JSON.stringify(message);
    if (options.retain) this.append(topic, raw, options.retain);
    const set = this.handlers.get(topic);
    if (!set?.size) return;
    const copy = JSON.parse(raw) as unknown;
    for (const h of [...set]) queueMicrotask(() => h(copy, topic));
  }

  async subscribe<T extends Topic>(topic: T, handler: BusHandler<T>): Promise<Unsubscribe> {
    const set = this.handlers.get(topic) ?? new Set<AnyHandler>();
    this.handlers.set(topic, set);
    const h = handler as AnyHandler;
    set.add(h);
    return () => {
      set.delete(h);
      if (set.size === 0 && this.handlers.get(topic) === set) this.handlers.delete(topic);
    };
  }

  async retained<T extends Topic>(topic: T): Promise<MessageOf<T>[]> {
    this.sweep();
    const log = this.logs.get(topic);
    if (!log || log.expiresAt <= this.now()) return [];
    return log.items.map((raw) => JSON.parse(raw) as MessageOf<T>);
  }

  async close(): Promise<void> {
    this.handlers.clear();
    this.logs.clear();
  }

  private append(topic: string, raw: string, retain: RetainOptions): void {
    this.sweep();
    const log = this.logs.get(topic) ?? { items: [], expiresAt: 0 };
    this.logs.set(topic, log);
    log.items.push(raw);
    if (log.items.length > retain.max) log.items.splice(0, log.items.length - retain.max);
    log.expiresAt = this.now() + retain.ttlSeconds * 1000;
  }

  /** Expired logs go at most once a second (the Redis backend expires its keys itself). */
  private sweep(): void {
    const now = this.now();
    if (now < this.nextSweep) return;
    this.nextSweep = now + 1000;
    for (const [topic, log] of this.logs) if (log.expiresAt <= now) this.logs.delete(topic);
  }
}
