import { describe, expect, it } from 'vitest';
import { EngineError } from '../../src/engines/errors.js';
import { RemoteFailure } from '../../src/engines/remote/http.js';
import { exponentialBackoff, fixedSchedule, isRetryable, nextDelay, parseRetryAfter, retry } from '../../src/platform/retry.js';
import { RETRY_SCHEDULE_S } from '../../src/webhooks/service.js';

/** Records the waits instead of sleeping. */
function recorder() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

describe('retry policy', () => {
  it('full jitter: every delay lies in [0, min(cap, base * 2^(n-1))], the bounds reached with random 0 and ~1', () => {
    const low = exponentialBackoff({ baseMs: 100, maxMs: 1000, random: () => 0 });
    const high = exponentialBackoff({ baseMs: 100, maxMs: 1000, random: () => 0.999999 });
    expect([1, 2, 3, 4, 5, 6].map(low)).toEqual([0, 0, 0, 0, 0, 0]);
    expect([1, 2, 3, 4, 5, 6].map(high)).toEqual([100, 200, 400, 800, 1000, 1000]);
    const half = exponentialBackoff({ baseMs: 100, random: () => 0.5 });
    expect(half(3)).toBe(200);
    const real = exponentialBackoff({ baseMs: 100, maxMs: 1000 });
    for (let n = 1; n <= 8; n++)
      for (let i = 0; i < 50; i++) {
        const d = real(n);
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThanOrEqual(Math.min(1000, 100 * 2 ** (n - 1)));
      }
  });

  it('the webhook schedule stays exactly 10/30/90/270 s times the scale, whatever the server asks', () => {
    const webhook = fixedSchedule(RETRY_SCHEDULE_S.map((s) => s * 1000));
    expect([1, 2, 3, 4].map(webhook)).toEqual([10_000, 30_000, 90_000, 270_000]);
    expect(webhook(9)).toBe(270_000);
    const scaled = fixedSchedule(RETRY_SCHEDULE_S.map((s) => Math.round(s * 1000 * 0.01)));
    expect([1, 2, 3, 4].map(scaled)).toEqual([100, 300, 900, 2700]);
    expect(nextDelay(webhook, 2, { retryAfterMs: 5 })).toBe(30_000);
  });

  it('Retry-After: delta-seconds and HTTP dates, capped; absent or unreadable falls back to the backoff', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0.5 ', now)).toBe(500);
    expect(parseRetryAfter('Mon, 23 Nov 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 11:00:00 GMT', now)).toBe(0); // a date in the past: retry now
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
    const backoff = exponentialBackoff({ baseMs: 100, random: () => 0.5 });
    expect(nextDelay(backoff, 1, new RemoteFailure('http', '429', 429, undefined, { retryable: true, retryAfterMs: 2000 }))).toBe(2000);
    expect(nextDelay(backoff, 1, { retryAfterMs: 10 * 60_000 }, 30_000)).toBe(30_000);
    expect(nextDelay(backoff, 1, new Error('plain'))).toBe(50);
  });

  it('retries what says it is retryable, up to the attempts, then throws the last error', async () => {
    const { waits, sleep } = recorder();
    let calls = 0;
    const err = await retry(
      async (attempt) => {
        calls++;
        throw new EngineError('llm_timeout', `attempt ${attempt}`, { retryable: true });
      },
      { attempts: 4, backoff: exponentialBackoff({ baseMs: 100, random: () => 0.999999 }), sleep },
    ).catch((e: unknown) => e);
    expect(calls).toBe(4);
    expect((err as Error).message).toBe('attempt 4');
    expect(waits).toEqual([100, 200, 400]);
  });

  it('does not retry unrecoverable errors (retryable false, or no retryable at all)', async () => {
    for (const failure of [new EngineError('llm_auth_failed', 'bad key'), new Error('bug'), 'a string']) {
      const { waits, sleep } = recorder();
      let calls = 0;
      await expect(
        retry(
          async () => {
            calls++;
            throw failure;
          },
          { attempts: 5, backoff: () => 1, sleep },
        ),
      ).rejects.toBe(failure);
      expect(calls).toBe(1);
      expect(waits).toEqual([]);
    }
    expect(isRetryable(new RemoteFailure('http', '503', 503, undefined, { retryable: true }))).toBe(true);
    expect(isRetryable(new RemoteFailure('timeout', 'slow'))).toBe(false);
  });

  it("waits the server's Retry-After between attempts, and succeeds when an attempt does", async () => {
    const { waits, sleep } = recorder();
    const result = await retry(
      async (attempt) => {
        if (attempt === 1) throw new RemoteFailure('http', '429', 429, undefined, { retryable: true, retryAfterMs: 1500 });
        if (attempt === 2) throw new RemoteFailure('http', '503', 503, undefined, { retryable: true });
        return 'done';
      },
      { attempts: 5, backoff: exponentialBackoff({ baseMs: 100, random: () => 0 }), sleep },
    );
    expect(result).toBe('done');
    expect(waits).toEqual([1500, 0]);
  });

  it('an abort during a wait stops at once with the given error', async () => {
    const controller = new AbortController();
    const p = retry(
      async () => {
        setTimeout(() => controller.abort(), 10);
        throw new EngineError('llm_timeout', 'slow', { retryable: true });
      },
      { attempts: 3, backoff: () => 60_000, signal: controller.signal, abortError: () => new Error('cancelled') },
    );
    await expect(p).rejects.toThrow('cancelled');
  });
});
