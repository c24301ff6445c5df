/**
 * Publish/subscribe by topic, used to fan events out across roles and processes (credit
 * crossings to the webhook service, live session events to every audience, speaker edits to
 * live sessions, import progress to its stream). In-process by default; a Redis
 * implementation shares the interface and its behaviour suite (test/bus).
 *
 * Topics and their message types are declared in topics.ts. Messages are JSON (subscribers
 * get copies); delivery is at-most-once (durable work goes to jobs and outboxes).
 */
import type { MessageOf, Topic } from './topics.js';

export type BusHandler<T extends Topic> = (message: MessageOf<T>, topic: T) => void;
export type Unsubscribe = () => void;

/**
 * A small bounded log kept with the topic by the backend (the replay buffer of a live
 * session): the message is appended in the same step as it is published, the log keeps the
 * latest `max` messages and is forgotten `ttlSeconds` after the last append.
 */
export interface RetainOptions {
  max: number;
  ttlSeconds: number;
}

export interface EventBus {
  /**
   * Messages travel over a network (Redis): messages published together reach a subscriber in
   * separate reads, a round trip or so apart, not in one tick as in process. Batching
   * subscribers (a broadcast room's writes) wait a few milliseconds for such a burst.
   */
  readonly remote: boolean;
  publish<T extends Topic>(topic: T, message: MessageOf<T>, options?: { retain?: RetainOptions }): Promise<void>;
  /**
   * Resolves once the subscription is live (Redis: SUBSCRIBE acknowledged): every message
   * published after that reaches `handler`. Resolves to the unsubscribe function.
   */
  subscribe<T extends Topic>(topic: T, handler: BusHandler<T>): Promise<Unsubscribe>;
  /** The topic's retained log, oldest first (empty when nothing was retained or it expired). */
  retained<T extends Topic>(topic: T): Promise<MessageOf<T>[]>;
  close(): Promise<void>;
}
