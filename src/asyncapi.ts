/**
 * The AsyncAPI 3.0 document served at `/asyncapi.json`, assembled above the features that
 * describe their channels: the live WebSocket (src/realtime/asyncapi.ts) and the broadcast
 * viewers' caption stream (server-sent events, src/broadcasts/viewer-asyncapi.ts).
 */
import { viewerChannelDoc } from './broadcasts/viewer-asyncapi.js';
import { liveChannelDoc } from './realtime/asyncapi.js';
import { INTERFACE_VERSION } from './version/interface-version.js';

export function asyncApiDocument() {
  const live = liveChannelDoc();
  const viewer = viewerChannelDoc();
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Parley live WebSocket',
      version: INTERFACE_VERSION,
      description:
        'Get a ticket from POST {base_url}/api/v1/auth/ticket (X-API-Key), then connect to {realtime_url}/ws with the subprotocol ticket.<TICKET> (Sec-WebSocket-Protocol). Every message is JSON {type, data}; client actions and server events are type voice-translation with data.action. Audio goes as binary frames (or the audio action). Close codes: 4001 ticket, 4003 key refused, 4008 timeout, 4013 too slow, 4029 rate limited, 1001 shutdown. The channel "viewer" is the broadcast viewers\' caption stream (server-sent events, no API key).',
    },
    servers: { realtime: live.server, viewers: viewer.server },
    channels: { live: live.channel, viewer: viewer.channel },
    operations: { ...live.operations, ...viewer.operations },
    components: { securitySchemes: live.securitySchemes },
  };
}
