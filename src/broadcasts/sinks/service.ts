/**
 * The host's REST side of caption sinks: read them with their delivery status, set them.
 * A broadcast's sinks may change until it ends; the node hosting it is told over the bus.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { EventBus } from '../../bus/types.js';
import { displayWebhookUrl } from '../../keys/service.js';
import type { Principal } from '../../platform/auth/types.js';
import { AppError } from '../../platform/errors/app-error.js';
import { BROADCAST_SINKS_TOPIC } from '../events.js';
import type { BroadcastService } from '../service.js';
import { parseSinks } from './rules.js';
import type { CaptionSink, CaptionSinkStore } from './store.js';

export interface SinkServiceDeps {
  broadcasts: Pick<BroadcastService, 'get'>;
  store: CaptionSinkStore;
  bus: EventBus;
  /** The webhook URL policy (PARLEY_WEBHOOK_ALLOW_PRIVATE): private targets only when it allows them. */
  allowPrivate: boolean;
  now: () => Date;
  logger?: Logger;
}

/** A sink as the owner sees it: the URL without its query (the platform's credentials live there). */
export function sinkJson(s: CaptionSink) {
  return {
    id: s.id,
    type: s.kind,
    url: displayWebhookUrl(s.url),
    language: s.language,
    region: s.region,
    line_length: s.lineLength,
    status: {
      state: s.state,
      last_seq: s.lastSeq,
      last_success_at: s.lastSuccessAt,
      last_error: s.lastError,
      last_error_at: s.lastErrorAt,
      captions_sent: s.captionsSent,
      captions_dropped: s.captionsDropped,
    },
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}

export class SinkService {
  constructor(private readonly d: SinkServiceDeps) {}

  async list(principal: Principal, broadcastId: string) {
    const b = await this.d.broadcasts.get(principal, broadcastId);
    return (await this.d.store.list(b.id)).map(sinkJson);
  }

  async replace(principal: Principal, broadcastId: string, body: unknown) {
    const b = await this.d.broadcasts.get(principal, broadcastId);
    const inputs = parseSinks(body, { translationLanguages: b.translationLanguages, allowPrivate: this.d.allowPrivate });
    if (b.status === 'ended' || b.status === 'revoked') {
      throw new AppError('broadcast_not_editable', { message: `The broadcast is ${b.status}; its caption sinks no longer change.` });
    }
    const sinks = await this.d.store.replace(b.id, inputs, randomUUID, this.d.now());
    // The sinks are saved: a lost announcement leaves the running host on the old list until it starts again.
    await this.d.bus
      .publish(BROADCAST_SINKS_TOPIC, { broadcast_id: b.id })
      .catch((err: unknown) => this.d.logger?.error({ err }, 'caption sink change not announced'));
    return sinks.map(sinkJson);
  }
}
