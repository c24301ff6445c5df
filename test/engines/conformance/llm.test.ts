/** Conformance of every language model: streamed deltas, usage, the length limit, typed errors. */
import { afterAll, expect, it } from 'vitest';
import { EngineError } from '../../../src/engines/errors.js';
import type { LanguageModel } from '../../../src/engines/types.js';
import { engineSet, forEachEngine, isAbortOrEngineError, rejection } from './engines.js';

const set = await engineSet<LanguageModel>('llm');
afterAll(() => set.close());
set.server.reply = () => 'The quarterly budget grows by ten percent and the launch moves to March.';

forEachEngine(set, (engine) => {
  it('answers with text whose streamed deltas add up to it, with token usage', async () => {
    const deltas: string[] = [];
    const r = await engine.chat([{ role: 'user', content: 'Say one sentence about a budget.' }], {
      onDelta: (d) => deltas.push(d),
      maxTokens: 64,
    });
    expect(r.text.trim()).not.toBe('');
    if (deltas.length) expect(deltas.join('')).toBe(r.text);
    expect(r.usage.input).toBeGreaterThan(0);
    expect(r.usage.output).toBeGreaterThan(0);
    expect(typeof r.truncated).toBe('boolean');
  }, 120_000);

  it('stops at maxTokens and says it was truncated', async () => {
    const r = await engine.chat([{ role: 'user', content: 'Write a long story about a budget meeting.' }], { maxTokens: 3 });
    expect(r.truncated).toBe(true);
    expect(r.usage.output).toBeLessThanOrEqual(4);
  }, 120_000);

  it('an aborted call rejects with an AbortError or a typed EngineError', async () => {
    const ac = new AbortController();
    ac.abort();
    const err = await rejection(engine.chat([{ role: 'user', content: 'Hello' }], { signal: ac.signal }));
    expect(isAbortOrEngineError(err)).toBe(true);
    if (err instanceof EngineError) expect(err.code).toMatch(/^llm_/);
  });
});
