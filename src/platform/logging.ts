import pino, { type Logger } from 'pino';

/**
 * Structured logs (pino, JSON lines). API keys never reach a log line: headers are
 * redacted by path, and URLs are passed through `redactSecrets` before logging.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'parley' },
      redact: {
        paths: [
          'req.headers["x-api-key"]',
          'req.headers.authorization',
          'req.headers["sec-websocket-protocol"]',
          '*.api_key',
          '*.webhook_secret',
        ],
        censor: '[redacted]',
      },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: {
        // Fastify's request serializer, with secrets stripped from the URL.
        req(req: { method?: string; url?: string; id?: string; ip?: string }) {
          return { method: req.method, url: req.url ? redactSecrets(req.url) : undefined, id: req.id, ip: req.ip };
        },
        err: pino.stdSerializers.err,
      },
    },
    destination,
  );
}

/** Removes API keys, tickets and tokens from a URL or text before it is logged. */
export function redactSecrets(text: string): string {
  return text
    .replace(/svc_[A-Za-z0-9]{4,}/g, 'svc_[redacted]')
    .replace(/([?&](?:api_key|feed_token|viewer_access_token|share_secret|ticket)=)[^&#\s]*/gi, '$1[redacted]');
}

export type { Logger };
