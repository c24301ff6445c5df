/**
 * Regenerating the summary of tasks that real live sessions made (WebSocket recording with
 * PocketSphinx, the built-in extractive summarizer), through SSE and GET /me/usage:
 * - a recording where nothing was recognized (a second of silence) completes with a
 *   transcript that has no text: GET and POST answer 400 `summary_text_empty` (severity
 *   `error`), nothing billed;
 * - the jfk recording: "Both GET and POST are billed": each request that reaches `done` is
 *   its own `regen_summary` usage row, and each `done` carries characters_billed, charged,
 *   billed, even though the sentence is too short to condense (too_short).
 * The LLM tiers: llm.test.ts (remote, OpenAI-compatible server) and local-llm.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, event, jfkPcm, startLiveApp, startSession, streamPcm, ticketAndKey, vt } from '../realtime/support.js';
import { backends, type TestApp } from '../support/app.js';
import { openStream, usageRows } from './support.js';

/** A second of 16 kHz s16le silence. */
const SILENCE = Buffer.alloc(32_000);

describe.each(backends())('regenerate the summary of a live recording (%s)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startLiveApp(backend);
  }, 60_000);
  afterAll(() => t?.close());

  const url = (taskId: string, query = '') => `${t.url}/api/v1/sse/regenerate/summary/${taskId}${query}`;

  /** Records `pcm` over a real WebSocket and stops; the completed task's id and the key. */
  async function record(pcm: Buffer) {
    const { ticket, key } = await ticketAndKey(t);
    const cl = await connect(t, [`ticket.${ticket}`]);
    const started = await startSession(cl, {});
    await streamPcm(cl, pcm, 8);
    cl.send(vt('stop'));
    expect((await event(cl, 'task_complete', 90_000)).data.status).toBe('completed');
    cl.ws.close();
    return { taskId: started.data.task_id as string, key };
  }

  const types = async (key: string) => (await usageRows(t, key)).map((r) => r.type);

  it('a recording where nothing was recognized: 400 summary_text_empty on GET and POST, nothing billed', async () => {
    const { taskId, key } = await record(SILENCE);
    const history = await (await openStream(`${t.url}/api/v1/sse/history/transcribe/${taskId}`, { key })).all();
    expect(history.find((e) => e.event === 'init_done')!.data).toEqual({ totalSentences: 0 });
    const before = await types(key);
    const get = await openStream(url(taskId, '?mode=builtin&template=general-summary'), { key });
    expect(get.status).toBe(400);
    expect(get.json.data).toMatchObject({ error_code: 'summary_text_empty', severity: 'error', message: expect.any(String) });
    const post = await openStream(url(taskId), { method: 'POST', key, body: { mode: 'builtin', template: 'general-summary' } });
    expect([post.status, post.json.data.error_code]).toEqual([400, 'summary_text_empty']);
    expect(await types(key)).toEqual(before);
    expect(before).not.toContain('regen_summary');
  }, 120_000);

  it('jfk: every GET and POST is billed, a regen_summary row each and the billing fields in each done', async () => {
    const { taskId, key } = await record(jfkPcm());
    const price = t.app.deps.billing.prices.oneOff('regen_summary');
    const get = (await (await openStream(url(taskId, '?mode=builtin&template=general-summary'), { key })).all()).at(-1)!;
    const post = (
      await (await openStream(url(taskId), { method: 'POST', key, body: { mode: 'builtin', template: 'general-summary' } })).all()
    ).at(-1)!;
    for (const [done, persisted] of [
      [get, false],
      [post, true],
    ] as const) {
      expect(done.event).toBe('done');
      expect(done.data).toMatchObject({
        task_id: taskId,
        persisted,
        characters_billed: expect.any(Number),
        charged: '5.0',
        billed: true,
      });
      expect(done.data.characters_billed).toBeGreaterThan(0);
    }
    const rows = (await usageRows(t, key)).filter((r) => r.type === 'regen_summary');
    expect(rows).toEqual([
      expect.objectContaining({ task_id: taskId, points: price, refunded: false }),
      expect.objectContaining({ task_id: taskId, points: price, refunded: false }),
    ]);
  }, 180_000);
});
