/**
 * A resume on another realtime process: the process holding the recording is asked over the
 * bus to hand it over (topic realtime.<instance>.handover); it parks the recording (its last
 * audio and snapshot stored, the row parked) and answers, and the asker claims the row and
 * goes on with it. A holder that does not answer is either dead (its lease lapses, and the row
 * can be claimed without it) or unreachable (resume_unavailable).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { type HandoverRequest, handoverReplyTopic, handoverTopic } from '../../bus/topics.js';
import type { EventBus, Unsubscribe } from '../../bus/types.js';
import { AppError } from '../../platform/errors/app-error.js';
import type { ErrorCode } from '../../platform/errors/registry.js';

/** Parks the recording of `token` for the asker; null when done, else the refusal. */
export type Release = (request: HandoverRequest) => Promise<AppError | null>;

/** Answers this process's hand-over requests; resolves once listening. */
export function serveHandovers(bus: EventBus, instanceId: string, release: Release, logger: Logger): Promise<Unsubscribe> {
  return bus.subscribe(handoverTopic(instanceId), (req) => {
    void (async () => {
      let refusal: AppError | null;
      try {
        refusal = await release(req);
      } catch (err) {
        logger.error({ err }, 'hand-over failed');
        refusal = new AppError('resume_unavailable', { variant: 'websocket', details: { reason: 'handover_failed' } });
      }
      await bus.publish(
        handoverReplyTopic(req.request_id),
        refusal ? { ok: false, code: refusal.code, message: refusal.message, details: refusal.details ?? {} } : { ok: true },
      );
    })().catch((err: unknown) => logger.error({ err }, 'hand-over answer not sent'));
  });
}

/** Asks `holder` to release the recording of `token`: null (parked for us), the refusal, or 'no_answer' within `timeoutMs`. */
export async function requestHandover(
  bus: EventBus,
  holder: string,
  token: string,
  keyId: string,
  timeoutMs: number,
): Promise<AppError | null | 'no_answer'> {
  const requestId = randomUUID();
  let settle!: (v: AppError | null | 'no_answer') => void;
  const answer = new Promise<AppError | null | 'no_answer'>((r) => {
    settle = r;
  });
  const off = await bus.subscribe(handoverReplyTopic(requestId), (reply) => {
    if (reply.ok) settle(null);
    else settle(new AppError(reply.code as ErrorCode, { variant: 'websocket', message: reply.message, details: reply.details }));
  });
  const timer = setTimeout(() => settle('no_answer'), timeoutMs);
  try {
    await bus.publish(handoverTopic(holder), { request_id: requestId, token, key_id: keyId });
    return await answer;
  } finally {
    clearTimeout(timer);
    off();
  }
}
