/** Webhook signatures (spec rule 7): `sha256=` + hex HMAC-SHA256 over `${timestamp}.${rawBody}`. */
import { createHmac, timingSafeEqual } from 'node:crypto';

export function signWebhook(secret: string, timestamp: number, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`;
}

/** What a receiver does (used by tests and shown in docs/webhooks.md). */
export function verifyWebhookSignature(secret: string, timestamp: string, rawBody: string, signature: string): boolean {
  const expected = Buffer.from(signWebhook(secret, Number(timestamp), rawBody));
  const got = Buffer.from(signature);
  return expected.length === got.length && timingSafeEqual(expected, got);
}
