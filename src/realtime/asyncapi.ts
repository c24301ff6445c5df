/**
 * The live WebSocket protocol in the AsyncAPI 3.0 document (`src/asyncapi.ts` assembles the
 * document served at `/asyncapi.json` from this channel and the broadcast viewers' one). It
 * lists every client action the connection dispatches (asyncapi/actions.ts) and every event
 * it sends (asyncapi/events.ts), with their fields and the error codes each action can bring.
 * test/realtime/asyncapi.test.ts compares it with the protocol code (the action handlers of
 * connection.ts, the events emitted under src/realtime and src/stream) and with a real
 * connection, so an action or event added without a line here fails the suite.
 */
import { type TSchema, Type } from 'typebox';
import { ERRORS } from '../platform/errors/registry.js';
import { ACTIONS } from './asyncapi/actions.js';
import { CONNECTION_ERRORS, EVENTS } from './asyncapi/events.js';
import { Open, Opt, S } from './asyncapi/schema.js';

export { ACTIONS, type ActionDoc } from './asyncapi/actions.js';
export { CONNECTION_ERRORS, EVENTS } from './asyncapi/events.js';

const ErrorData = Type.Object({
  error_code: Type.String(),
  severity: S('fatal, error, warning'),
  message: S('Display text; do not parse'),
  context: Type.String(),
  sid: Opt(Type.Integer({ description: 'Sentence-level: the session continues' })),
  timestamp: Type.String(),
  details: Type.Union([Open('details'), Type.Null()]),
});

const envelope = (action: string, fields: TSchema) =>
  Type.Object({
    type: Type.Literal('voice-translation'),
    data: Type.Object(
      { action: Type.Literal(action), ...((fields as { properties?: Record<string, TSchema> }).properties ?? {}) },
      {
        additionalProperties: true,
      },
    ),
  });

/** The `live` channel: its server, its messages and operations, and the ticket security scheme. */
export function liveChannelDoc() {
  const messages: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const ref = (name: string) => ({ $ref: `#/channels/live/messages/${name}` });
  for (const [name, a] of Object.entries(ACTIONS)) {
    messages[`action.${name}`] = {
      name,
      title: `${name} (client action)`,
      summary: a.summary,
      payload: envelope(name, Type.Object(a.fields)),
      'x-errors': a.errors.map((c) => ({ code: c, severity: ERRORS[c].severity, message: ERRORS[c].message })),
      ...(a.replies ? { 'x-replies': a.replies } : {}),
      ...(a.since ? { 'x-since': a.since } : {}),
    };
    operations[`send_${name}`] = {
      action: 'receive',
      channel: { $ref: '#/channels/live' },
      summary: a.summary,
      messages: [ref(`action.${name}`)],
      ...(a.replies ? { 'x-replies': a.replies } : {}),
    };
  }
  for (const [name, e] of Object.entries(EVENTS)) {
    messages[`event.${name}`] = { name, title: `${name} (server event)`, summary: e.summary, payload: envelope(name, e.fields) };
    operations[`on_${name}`] = {
      action: 'send',
      channel: { $ref: '#/channels/live' },
      summary: e.summary,
      messages: [ref(`event.${name}`)],
    };
  }
  messages.health = {
    name: 'health',
    title: 'health (both ways)',
    summary:
      'Application keep-alive: send {type: "health", data: {}}; the server answers {type: "health", data: {action: "pong", state, timestamp}}',
    payload: Type.Object({ type: Type.Literal('health'), data: Open('action pong, state, timestamp (server)') }),
  };
  messages.error = {
    name: 'error',
    title: 'error (server)',
    summary:
      'Any failure: {type: "error", data: <error object>}. A rejected start leaves the connection open; fatal without sid ends the session.',
    payload: Type.Object({ type: Type.Literal('error'), data: ErrorData }),
    'x-errors': CONNECTION_ERRORS.map((c) => ({ code: c, severity: ERRORS[c].severity, message: ERRORS[c].message })),
  };
  operations.health = { action: 'receive', channel: { $ref: '#/channels/live' }, messages: [ref('health')] };
  operations.on_error = { action: 'send', channel: { $ref: '#/channels/live' }, messages: [ref('error')] };
  return {
    server: {
      host: '{realtime_host}',
      protocol: 'wss',
      pathname: '/ws',
      description: 'The real-time host ({realtime_url}); may differ from the REST host',
      variables: { realtime_host: { default: 'localhost:8080' } },
      security: [{ $ref: '#/components/securitySchemes/ticket' }],
    },
    channel: { address: '/ws', title: 'One live session per connection', servers: [{ $ref: '#/servers/realtime' }], messages },
    operations,
    securitySchemes: {
      ticket: {
        type: 'httpApiKey',
        name: 'Sec-WebSocket-Protocol',
        in: 'header',
        description: 'The value ticket.<TICKET>; a ticket is single use and valid 60 seconds',
      },
    },
  };
}
