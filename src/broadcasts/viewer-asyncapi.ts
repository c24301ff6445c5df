/**
 * The broadcast viewer caption stream (GET /broadcast/{token}/text, server-sent events) as a
 * channel of the AsyncAPI document (src/asyncapi.ts, served at /asyncapi.json): each
 * event a viewer can receive, with its payload schema (the same schemas the OpenAPI document
 * and the contract check use: viewer-stream.ts VIEWER_EVENTS).
 */
import { Type } from 'typebox';
import { VIEWER_EVENTS } from './viewer-stream.js';

/** When each viewer event comes (docs/broadcasts.md has the whole story). */
const SUMMARIES: Record<string, string> = {
  connected: 'First event of every stream: the translation languages, the listenable languages and the phase',
  queued: 'Past max_viewers: the place in the waiting line, again as it changes',
  admitted: 'A queued viewer got a seat: captions (and the catch-up summary) follow',
  catch_up:
    "Parley: a summary of what was said since going live, in the viewer's lang (else the spoken language), sent before any caption when a viewer joins a live (or paused) broadcast or reconnects; its SSE id comes back as Last-Event-ID on an EventSource reconnect, and the same summary is then not sent again. Absent when the host turned catch_up off or nothing was summarized yet. Rewritten every PARLEY_BROADCAST_CATCH_UP_INTERVAL_SECONDS, at a pause and when the host drops",
  origin: 'A caption in the spoken language (interim, then final); late joiners get the latest few finals first',
  translation: 'A caption translated (lang filters to one language)',
  tts_ready: 'A final sentence spoken in a translation language (tts=true, live phase)',
  paused: 'The host paused',
  resumed: 'The host resumed',
  ended: 'The broadcast ended; the stream closes',
  kicked: "This viewer's access stopped (a new password); the stream closes",
  error: 'A sentence-level error (with sid), or the end of the stream (revoked)',
  speaker_renamed: 'Multi-speaker broadcasts: a speaker renamed',
  speaker_reassigned: 'Multi-speaker broadcasts: a sentence given to another speaker',
  speakers_merged: 'Multi-speaker broadcasts: two speakers merged',
  sentence_corrected:
    'Parley: a caption was corrected (or a correction undone) by the host or the owner: replace the sentence and its translation (every language is in translations); late joiners get it after the sentence',
  recording_started: 'A new recording began: clear earlier captions',
  max_viewers_changed: 'The host changed max_viewers',
  host_disconnected: 'The host dropped; the broadcast waits for it',
  host_reconnected: 'The host is back (data.resumed)',
  standby: 'Not live yet: the standby message with its translations',
  phase_changed: 'The broadcast went live',
  announcement: "The host's announcement with its translations",
};

export function viewerChannelDoc() {
  const messages: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(VIEWER_EVENTS)) {
    const summary = SUMMARIES[name] ?? name;
    messages[`viewer.${name}`] = {
      name,
      title: `${name} (viewer event)`,
      summary,
      // An SSE frame: `event: <name>` and `data: <JSON>` (catch_up also carries an `id:`).
      payload: Type.Object({ event: Type.Literal(name), data: schema }),
    };
    operations[`viewer_on_${name}`] = {
      action: 'send',
      channel: { $ref: '#/channels/viewer' },
      summary,
      messages: [{ $ref: `#/channels/viewer/messages/viewer.${name}` }],
    };
  }
  return {
    server: {
      host: '{base_host}',
      protocol: 'https',
      pathname: '/broadcast/{token}/text',
      description:
        'Server-sent events on the REST host ({base_url}); no API key: lang, tts and (password channels) viewer_access_token in the query. A heartbeat comment every 15 s.',
      variables: { base_host: { default: 'localhost:8080' } },
    },
    channel: {
      address: '/broadcast/{token}/text',
      title: 'A broadcast viewer caption stream (SSE)',
      servers: [{ $ref: '#/servers/viewers' }],
      parameters: { token: { description: "The broadcast's 4-character share token" } },
      messages,
    },
    operations,
  };
}
