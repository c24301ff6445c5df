import type { BusHandler, EventBus } from './types.js';

/** The embedded bus: handlers run on the next tick, so a publisher never waits on them. */
export class InProcessBus implements EventBus {
  private readonly handlers = new Map<string, Set<BusHandler>>();

  async publish(topic: string, message: unknown): Promise<void> {
    const set = this.handlers.get(topic);
    if (!set?.size) return;
    // Copy through JSON so subscribers see what a networked bus would deliver.
    const copy = JSON.parse(JSON.stringify(message)) as unknown;
    for (const h of [...set]) queueMicrotask(() => h(copy, topic));
  }

  subscribe(topic: string, handler: BusHandler): () => void {
    const set = this.handlers.get(topic) ?? new Set<BusHandler>();
    this.handlers.set(topic, set);
    set.add(handler);
    return () => {
      set.delete(handler);
    };
  }

  async close(): Promise<void> {
    this.handlers.clear();
  }
}
