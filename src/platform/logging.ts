import pino, { type Logger } from 'pino';
import { fdDestination } from './log-destination.js';

/**
 * Structured logs (pino, JSON lines). API keys never reach a log line: headers are
 * redacted by path, and URLs are passed through `redactSecrets` before logging. Lines go to
 * stdout through `fdDestination` (never hangs or throws when stdout's reader is gone).
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
    destination ?? fdDestination(1),
  );
}

const SECRET_PARAMS = new Set(['api_key', 'feed_token', 'viewer_access_token', 'share_secret', 'ticket']);

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/**
 * Removes API keys, tickets and tokens from a URL or text before it is logged. Query
 * parameter names are compared decoded (a client may percent-encode them, and the query
 * parser decodes them), and any value that decodes to something holding a key is redacted.
 */
export function redactSecrets(text: string): string {
  const q = text.indexOf('?');
  let out = text;
  if (q >= 0) {
    const [query, fragment] = text.slice(q + 1).split('#', 2) as [string, string | undefined];
    const params = query.split('&').map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      const value = eq < 0 ? '' : pair.slice(eq + 1);
      if (SECRET_PARAMS.has(safeDecode(name).toLowerCase()) || /svc_/i.test(safeDecode(value))) return `${name}=[redacted]`;
      return pair;
    });
    out = `${text.slice(0, q)}?${params.join('&')}${fragment !== undefined ? `#${fragment}` : ''}`;
  }
  return out.replace(/svc(?:_|%5f)[A-Za-z0-9%]{4,}/gi, 'svc_[redacted]');
}

export type { Logger };
