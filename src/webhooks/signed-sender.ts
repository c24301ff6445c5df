/**
 * Signs and sends one webhook request, and verifies a key-level URL with `webhook.verify`
 * (spec rule 9). It needs no other feature, so the composition root builds it first: the
 * keys feature gets `verifyUrl` to check a URL before saving it, and the webhook service uses
 * `send` for every delivery attempt.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../platform/errors/app-error.js';
import { eventData } from './events.js';
import { postWebhook, type SendResult } from './sender.js';
import { signWebhook } from './signer.js';

export const USER_AGENT = 'SVC-Webhook/1.0';

export interface SenderOptions {
  allowPrivate: boolean;
  verifyTimeoutMs: number;
}

export class WebhookSender {
  constructor(
    private readonly options: SenderOptions,
    private readonly now: () => Date,
  ) {}

  /** One signed POST; each attempt is signed afresh with its own timestamp (receivers reject old ones). */
  send(url: string, event: string, deliveryId: string, body: string, secret: string, timeoutMs: number): Promise<SendResult> {
    const ts = Math.floor(this.now().getTime() / 1000);
    return postWebhook({
      url,
      body,
      timeoutMs,
      allowPrivate: this.options.allowPrivate,
      headers: {
        'Content-Type': 'application/json',
        'X-SVC-Event': event,
        'X-SVC-Delivery-Id': deliveryId,
        'X-SVC-Timestamp': String(ts),
        'X-SVC-Signature': signWebhook(secret, ts, body),
        'User-Agent': USER_AGENT,
      },
    });
  }

  /**
   * Sends `webhook.verify` to a key-level URL before it is saved: only a 2xx within the
   * verification limit passes; anything else refuses the URL with the reason.
   */
  async verifyUrl(url: string, secret: string, keyId: string): Promise<void> {
    const id = randomUUID();
    const body = JSON.stringify({
      event: 'webhook.verify',
      timestamp: this.now().toISOString(),
      delivery_id: id,
      data: eventData.webhookVerify({ key_id: keyId }),
    });
    const r = await this.send(url, 'webhook.verify', id, body, secret, this.options.verifyTimeoutMs);
    if (!r.ok) {
      throw new AppError('validation_failed', {
        message: `The webhook URL did not pass verification (a 2xx answer within ${this.options.verifyTimeoutMs / 1000} s is required): ${r.error}.`,
        details: { field: 'webhook_url', status_code: r.statusCode, reason: r.error },
      });
    }
  }
}
