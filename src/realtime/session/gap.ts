/**
 * The events a client away misses (the session keeps them while it waits for a resume, and a
 * hand-over carries them in the snapshot): finals, translations, statuses; interims and other
 * transient events are for who watches now, so they are dropped.
 */
import { isTransient, type SessionEvent } from '../../stream/events.js';
import type { Recording } from '../recording.js';

/** At most this many events are kept: beyond it, later ones are not (the resumed client misses them). */
const GAP_MAX = 2000;

/** Keeps into `gap` what a client away misses, from now until the returned function is called. */
export function collectGap(rec: Recording, gap: SessionEvent[]): () => void {
  return rec.events.attach((e) => {
    if (!isTransient(e) && gap.length < GAP_MAX) gap.push(e);
  });
}
