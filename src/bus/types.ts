/**
 * Publish/subscribe by topic, used to fan events out across roles and processes (credit
 * crossings to the webhook service, live results to broadcast viewers, speaker edits to
 * live sessions). In-process by default; a Redis implementation shares the interface.
 * Messages are JSON-serializable; delivery is at-most-once (durable work goes to jobs).
 */
export type BusHandler = (message: unknown, topic: string) => void;

export interface EventBus {
  publish(topic: string, message: unknown): Promise<void>;
  /** Returns the unsubscribe function. */
  subscribe(topic: string, handler: BusHandler): () => void;
  close(): Promise<void>;
}
