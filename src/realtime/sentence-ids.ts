/**
 * Sentence numbers (sid) of one recording. A sentence takes its number with its first result
 * (interim or final) and keeps it until its final; numbers follow the order in which sentences
 * first show, across all the recording's recognizer streams (channels run at once).
 *
 * Which results form one sentence: a recognizer that numbers its utterances
 * (SttResult.utterance) may show the next utterance while the previous one's final is still
 * being decoded, so its results are keyed by stream and utterance; results of a recognizer
 * that does not are in utterance order, and a final closes the sentence its interims began.
 */
import { randomUUID } from 'node:crypto';
import type { SttResult } from '../engines/types.js';

/** One recognizer stream's place in the numbering (see keyOf). */
export interface Lane {
  /** Results without an utterance number: a stream that replaces another may share it. */
  readonly key: string;
  /** Prefix of this stream's numbered utterances (a new stream numbers from 0 again). */
  readonly utterances: string;
}

/**
 * A lane of its own (a channel's stream, or one main stream's numbered utterances). Its name
 * only has to differ from every other lane of the recording; a random one needs no counter
 * kept for the process (a recording resumed on another node makes new lanes there).
 */
export function newLane(shared?: string): Lane {
  const own = `lane-${randomUUID()}`;
  return { key: shared ?? own, utterances: own };
}

export function keyOf(lane: Lane, r: SttResult): string {
  return r.utterance === undefined ? lane.key : `${lane.utterances}/${r.utterance}`;
}

export class SentenceIds {
  /** Sentences that showed and have no final yet, by key. */
  private readonly open = new Map<string, number>();

  constructor(private next = 1) {}

  /** The number the next new sentence takes (kept in a recording's snapshot). */
  get nextSid(): number {
    return this.next;
  }

  /** The sid of the sentence `key`: the one its first result took. */
  of(key: string): number {
    let sid = this.open.get(key);
    if (sid === undefined) {
      sid = this.next++;
      this.open.set(key, sid);
    }
    return sid;
  }

  /** The sentence got its final: a further result of the key (the next utterance, or a further part of a split final) starts a new one. */
  close(key: string): void {
    this.open.delete(key);
  }

  /**
   * The recognizer says the sentence came to nothing (an empty final). When no later sentence
   * took a number meanwhile, its number is given back: the next sentence takes it and replaces
   * its interims on every screen. Otherwise returns its sid: its interims must be withdrawn.
   */
  withdraw(key: string): number | null {
    const sid = this.open.get(key);
    if (sid === undefined) return null;
    this.open.delete(key);
    if (sid === this.next - 1) {
      this.next = sid;
      return null;
    }
    return sid;
  }
}
