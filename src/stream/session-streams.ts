/**
 * Live sessions as event streams. The node that runs a recording opens its publisher: every
 * event gets the session's next sequence number, goes synchronously to the listeners
 * attached on this node (the owner's WebSocket) and onto the bus topic
 * `session.<taskId>.events` for every other audience, on any node. Finals, translations,
 * status changes and speaker edits are also appended to the topic's retained log (the
 * replay buffer, kept by the bus backend: latest REPLAY_FINALS finals with their
 * translations), so a late joiner on any node starts with the latest sentences.
 * Speaker edits made over REST (published on `task.<id>.speakers`) join the stream here, so
 * they are numbered like everything else.
 */
import type { Logger } from 'pino';
import { sessionTopic, speakerTopic } from '../bus/topics.js';
import type { EventBus, RetainOptions, Unsubscribe } from '../bus/types.js';
import { isEnd, isTransient, type SessionEvent, type SessionEventBody } from './events.js';

/** Finals a late joiner gets (each with its translations). */
export const REPLAY_FINALS = 50;
/**
 * Translations are checked against the finals a subscriber got (orphans dropped) until it got
 * this many finals: a translation goes out within a few sentences of its final, so no orphan
 * can come later, and the set of sids a subscriber keeps stays small.
 */
export const ORPHAN_CHECK_FINALS = 4 * REPLAY_FINALS;
/** The replay buffer is forgotten this long after the session's last event... */
export const REPLAY_TTL_SECONDS = 2 * 60 * 60;
/** ...and this long after its end (late joiners still learn that it ended). */
export const REPLAY_TTL_AFTER_END_SECONDS = 5 * 60;

export type SessionListener = (event: SessionEvent) => void;

/**
 * Sees every event where it is published (the node running the recording), after this node's
 * listeners: the search index writes live finals through it (src/search/live-index.ts). It
 * must not block; a throw is logged and ignored.
 */
export type SessionObserver = (event: SessionEvent) => void;

export class SessionPublisher {
  private seq = 0;
  private readonly listeners = new Set<SessionListener>();
  private ended = false;
  private offSpeakers: Unsubscribe = () => {};

  constructor(
    readonly taskId: string,
    private readonly bus: EventBus,
    private readonly retain: RetainOptions,
    private readonly logger: Logger,
    private readonly onEnd: () => void,
    /** A stream continued on this node (a resumed recording): numbering goes on from here. */
    startSeq = 0,
    private readonly observer?: SessionObserver,
  ) {
    this.seq = startSeq;
  }

  /** Speaker edits of the task become session events (resolves once the subscription is live). */
  async followSpeakerEdits(): Promise<void> {
    this.offSpeakers = await this.bus.subscribe(speakerTopic(this.taskId), (edit) => this.publish(edit));
  }

  /** The sequence number of the last event published. */
  get lastSeq(): number {
    return this.seq;
  }

  /** Numbers the event, hands it to this node's listeners, then to the bus. Ignored after the end. */
  publish(body: SessionEventBody): SessionEvent | null {
    if (this.ended) return null;
    const event = { ...body, seq: ++this.seq, task_id: this.taskId } as SessionEvent;
    for (const l of [...this.listeners]) {
      try {
        l(event);
      } catch (err) {
        this.logger.error({ err, task_id: this.taskId }, 'session listener failed');
      }
    }
    try {
      this.observer?.(event);
    } catch (err) {
      this.logger.error({ err, task_id: this.taskId }, 'session observer failed');
    }
    const end = isEnd(body);
    const retain = isTransient(body) ? undefined : end ? { ...this.retain, ttlSeconds: REPLAY_TTL_AFTER_END_SECONDS } : this.retain;
    // The publisher never waits on the bus; a lost message shows as a seq gap to remote subscribers.
    void this.bus
      .publish(sessionTopic(this.taskId), event, { retain })
      .catch((err: unknown) => this.logger.warn({ err, task_id: this.taskId }, 'session event not published'));
    if (end) this.close();
    return event;
  }

  /** Listens on this node, synchronously, from the next event on. Returns the detach function. */
  attach(listener: SessionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Publishes `status: ended` (the last event of the stream) and closes the publisher. */
  end(): void {
    this.publish({ event: 'status', data: { status: 'ended', task_id: this.taskId } });
  }

  /** Closes without an end event (the session never started). */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.listeners.clear();
    this.offSpeakers();
    this.onEnd();
  }
}

export interface SessionSubscription {
  /** Seq of the last event delivered (0 before the first). */
  readonly lastSeq: number;
  /** Events that were missing between two delivered ones (the bus lost them). */
  readonly gaps: number;
  /** Resolves when `status: ended` was delivered or close() was called. */
  readonly ended: Promise<void>;
  close(): void;
}

export class SessionStreams {
  private readonly open = new Map<string, SessionPublisher>();

  constructor(
    private readonly bus: EventBus,
    private readonly logger: Logger,
    /** Given every event of the sessions published on this node (the live search index). */
    private readonly observer?: SessionObserver,
  ) {}

  /**
   * The node running a recording opens its stream once the task exists. `translations` (the
   * number of real-time translation targets) sizes the replay buffer. `startSeq`: the seq of
   * the last event another node published (the recording moved here on a resume).
   */
  async publisher(taskId: string, translations: number, startSeq = 0): Promise<SessionPublisher> {
    const existing = this.open.get(taskId);
    if (existing) return existing;
    const retain = { max: REPLAY_FINALS * (1 + translations) + 20, ttlSeconds: REPLAY_TTL_SECONDS };
    const pub = new SessionPublisher(
      taskId,
      this.bus,
      retain,
      this.logger,
      () => {
        if (this.open.get(taskId) === pub) this.open.delete(taskId);
      },
      startSeq,
      this.observer,
    );
    this.open.set(taskId, pub);
    await pub.followSpeakerEdits();
    return pub;
  }

  /** The publisher of a session running on this node, if any. */
  local(taskId: string): SessionPublisher | undefined {
    return this.open.get(taskId);
  }

  /**
   * Any node: the session's events, in seq order, each once. Resolves once the subscription
   * is live; with `replay` (default) the retained latest finals (with their translations and
   * the status and speaker events among them) come first, then live events, without a gap
   * between the two. After the session ended, the replay ends with `status: ended` (within
   * REPLAY_TTL_AFTER_END_SECONDS). A translation is delivered only after its own final
   * (OrphanFilter): the retained log is cut by count, wherever the publishes in flight
   * happen to stand when it is read. `onEvent` runs synchronously on the bus's delivery:
   * put an Outbox in front of anything slow.
   */
  async subscribe(taskId: string, onEvent: SessionListener, options: { replay?: boolean } = {}): Promise<SessionSubscription> {
    let last = 0;
    /** Seq of the last event that came live (gaps are counted between live events only: the replay holds no interims). */
    let lastLive = 0;
    let gaps = 0;
    let closed = false;
    let markEnded!: () => void;
    const ended = new Promise<void>((r) => {
      markEnded = r;
    });
    const orphans = new OrphanFilter();
    const deliver = (e: SessionEvent, live: boolean) => {
      if (closed || e.seq <= last) return;
      if (live) {
        if (lastLive > 0 && e.seq > lastLive + 1) gaps += e.seq - lastLive - 1;
        lastLive = e.seq;
      }
      last = e.seq;
      // Counted as delivered (no gap), but never shown without its sentence.
      if (orphans.drops(e)) return;
      try {
        onEvent(e);
      } catch (err) {
        this.logger.error({ err, task_id: taskId }, 'session subscriber failed');
      }
      if (isEnd(e)) close();
    };
    // Live events that arrive while the replay is read wait here, then follow it.
    let early: SessionEvent[] | null = options.replay === false ? null : [];
    const off = await this.bus.subscribe(sessionTopic(taskId), (e) => {
      if (early) early.push(e);
      else deliver(e, true);
    });
    const close = () => {
      if (closed) return;
      closed = true;
      off();
      markEnded();
    };
    if (early) {
      try {
        for (const e of await this.bus.retained(sessionTopic(taskId))) deliver(e, false);
      } catch (err) {
        this.logger.warn({ err, task_id: taskId }, 'session replay not read');
      }
      const waiting = early;
      early = null;
      for (const e of waiting) deliver(e, true);
    }
    return {
      get lastSeq() {
        return last;
      },
      get gaps() {
        return gaps;
      },
      ended,
      close,
    };
  }
}

/**
 * Drops the translations whose final a subscriber did not get. The retained log keeps the
 * latest N events, so where it is read decides where it starts: with publishes still in flight
 * (Redis: each one a MULTI of its own, the read lands between any two), between a final and
 * its translation, between two languages' translations of one sentence, or after a final whose
 * translation is published a few sentences later (translations lag behind finals). Each left a
 * late joiner a translation of a sentence it never saw. The same holds for the first live
 * events of a subscriber whose replay was empty (a failed read, `replay: false`). The check ends
 * after ORPHAN_CHECK_FINALS finals: nothing published before the subscriber's start comes that late.
 */
class OrphanFilter {
  private finals: Set<number> | null = new Set();

  drops(e: SessionEvent): boolean {
    const finals = this.finals;
    if (!finals) return false;
    if (e.event === 'result' && e.data.origin.is_final) {
      finals.add(e.data.origin.sid);
      if (finals.size >= ORPHAN_CHECK_FINALS) this.finals = null;
      return false;
    }
    // An interim translation belongs to a sentence still being said: never an orphan.
    return e.event === 'translation' && e.data.is_final && !finals.has(e.data.sid);
  }
}
