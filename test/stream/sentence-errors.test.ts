/**
 * Sentence errors on the session stream, over both bus backends: a subscriber on another node
 * gets a `sentence_error` live, in seq order between the results, but a late joiner's replay
 * never holds one (it is for who watches now), and the replay still holds the finals.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventBus } from '../../src/bus/types.js';
import { createLogger } from '../../src/platform/logging.js';
import type { SessionEvent } from '../../src/stream/events.js';
import { sentenceError } from '../../src/stream/sentence-errors.js';
import { SessionStreams } from '../../src/stream/session-streams.js';
import { busPairFactories } from '../support/buses.js';
import { until } from '../support/until.js';
import { sentence } from './support.js';

const logger = createLogger('silent');
const failed = { code: 'translation_failed', severity: 'error', message: 'Translation failed.', context: 'translation' };

describe.each(busPairFactories())('sentence errors on the session stream ($name bus)', ({ make }) => {
  const open: EventBus[] = [];
  afterEach(async () => {
    for (const b of new Set(open.splice(0))) await b.close();
  });

  it('reach live subscribers in order and never a late joiner', async () => {
    const [a, b] = await make();
    open.push(a, b);
    const owner = new SessionStreams(a, logger);
    const other = new SessionStreams(b, logger);
    const taskId = randomUUID();
    const pub = await owner.publisher(taskId, 1);
    const live: SessionEvent[] = [];
    await other.subscribe(taskId, (e) => live.push(e));
    for (const body of sentence(1, 40)) pub.publish(body);
    pub.publish(sentenceError({ ...failed, details: { translation_language: 'fr' } }, 1));
    for (const body of sentence(2, 40)) pub.publish(body);
    await until(() => live.length === 11, 30_000);
    expect(live.map((e) => e.seq)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
    expect(live[5]).toMatchObject({
      event: 'sentence_error',
      seq: 6,
      task_id: taskId,
      data: { sid: 1, error_code: 'translation_failed', translation_language: 'fr', severity: 'error' },
    });
    const late: SessionEvent[] = [];
    const joined = await other.subscribe(taskId, (e) => late.push(e));
    expect(late.map((e) => e.event)).toEqual(['result', 'translation', 'result', 'translation']);
    expect(late.some((e) => e.event === 'sentence_error')).toBe(false);
    joined.close();
    pub.end();
  });
});
