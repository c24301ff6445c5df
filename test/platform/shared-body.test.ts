/**
 * Answers shared while nothing changes (src/platform/http/reply.ts): GET /me/plan's plan-bound
 * view is the same frozen object while its limits report holds, its envelope the same, and its
 * JSON text made once; every other body is encoded afresh each time.
 */
import { describe, expect, it } from 'vitest';
import { encodeBody, ok, okShared } from '../../src/platform/http/reply.js';

describe('shared response bodies', () => {
  it('a frozen view answered again gets the same envelope and the same JSON text', () => {
    const view = Object.freeze({ mode: 'unlimited', limits: Object.freeze({ daily_used_minutes: 3 }) });
    const envelope = okShared(view);
    expect(okShared(view)).toBe(envelope);
    expect(Object.isFrozen(envelope)).toBe(true);
    const text = encodeBody(envelope);
    expect(text).toBe(JSON.stringify({ data: view }));
    expect(encodeBody(okShared(view))).toBe(text);
    // Another view (the counts moved: a new report, so a new view) is its own answer.
    const next = Object.freeze({ mode: 'unlimited', limits: Object.freeze({ daily_used_minutes: 4 }) });
    expect(JSON.parse(encodeBody(okShared(next))).data.limits.daily_used_minutes).toBe(4);
  });

  it('a body that is not shared is encoded as it is now, every time', () => {
    const data = { available_credit: 10 };
    const body = ok(data);
    expect(encodeBody(body)).toBe('{"data":{"available_credit":10}}');
    data.available_credit = 7;
    expect(encodeBody(body)).toBe('{"data":{"available_credit":7}}');
    expect(encodeBody('text')).toBe('"text"');
    expect(encodeBody(null)).toBe('null');
  });
});
