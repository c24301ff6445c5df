/** Conformance of every summarizer: the same meeting transcript, key terms kept, streaming and errors. */

import { afterAll, beforeAll, expect, it } from 'vitest';
import { extractiveSummarizerFactory } from '../../../src/engines/builtin/extractive-summarizer.js';
import { EngineError } from '../../../src/engines/errors.js';
import type { Summarizer } from '../../../src/engines/types.js';
import { BUDGET_MEETING } from '../../support/meetings.js';
import { chatFromEngines, engineSet, forEachEngine, isAbortOrEngineError, rejection } from './engines.js';
import { limit, MIN_KEY_TERMS } from './quality.js';

const set = await engineSet<Summarizer>('summarizer');
beforeAll(async () => {
  // LLM summarizers are answered by the real extractive summarizer behind the local server.
  const extractive = (await extractiveSummarizerFactory.create(set.ctx)) as Summarizer;
  chatFromEngines(set.server, {
    summarize: async (lines) => (await extractive.summarize({ segments: lines, language: 'en', plainText: true })).text,
  });
});
afterAll(() => set.close());

const MEETING = BUDGET_MEETING;
const KEY_TERMS = ['budget', 'marketing', 'launch', 'march', 'report', 'friday', 'engineers'];

forEachEngine(set, (engine) => {
  it('summarizes the meeting keeping the key terms, with usage and a truncated flag', async () => {
    const deltas: string[] = [];
    const r = await engine.summarize({ segments: MEETING, language: 'en', plainText: true, onDelta: (t) => deltas.push(t) });
    expect(r.text.trim()).not.toBe('');
    const kept = KEY_TERMS.filter((k) => r.text.toLowerCase().includes(k)).length / KEY_TERMS.length;
    expect(kept).toBeGreaterThanOrEqual(limit(MIN_KEY_TERMS, engine.id));
    expect(Number.isInteger(r.usage.input) && r.usage.input >= 0).toBe(true);
    expect(Number.isInteger(r.usage.output) && r.usage.output >= 0).toBe(true);
    expect(typeof r.truncated).toBe('boolean');
    // onDelta reports the cumulative text: each report extends the previous one.
    for (let i = 1; i < deltas.length; i++) expect(deltas[i]!.startsWith(deltas[i - 1]!)).toBe(true);
  });

  it('an empty transcript is refused with summary_text_empty', async () => {
    const err = await rejection(engine.summarize({ segments: ['', '  '], language: 'en', plainText: true }));
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).code).toBe('summary_text_empty');
  });

  it('an aborted call rejects with an AbortError or a typed EngineError', async () => {
    const ac = new AbortController();
    ac.abort();
    const err = await rejection(engine.summarize({ segments: MEETING, language: 'en', plainText: true, signal: ac.signal }));
    expect(isAbortOrEngineError(err)).toBe(true);
  });
});
