/**
 * The multi_channel actions (channel-spec.ts parses, channels.ts runs the recognizers):
 * add_channel -> channel_added, remove_channel -> channel_removed, set_channel_language ->
 * channel_language_set, each carrying the session's channels after the change. The events go
 * through the session stream (src/stream), so the owner, floating-subtitle viewers and a
 * resumed owner's missed events all have them. Refusals: not_multi_channel_session, channel_action_while_paused, the channel id and
 * language codes, channel_rebuild_too_frequent (one change per channel per 5 s), and
 * plan_feature_not_allowed (details.field max_stt_streams) for a channel past the plan.
 */
import { AppError } from '../platform/errors/app-error.js';
import type { ChannelInfo } from '../stream/events.js';
import {
  type ChannelLanguages,
  channelError,
  existingChannelId,
  MAX_CHANNELS,
  parseChannel,
  parseChannelLanguage,
} from './channel-spec.js';
import type { Recording } from './recording.js';
import type { ActionContext } from './session-actions.js';

type Data = Record<string, unknown>;

/** The running multi_channel recording, or null after telling the client why not. */
function channelSession(c: ActionContext, action: string): Recording | null {
  const rec = c.running;
  if (!rec) {
    c.sendError(new AppError('session_not_started', { variant: 'websocket', details: { action } }));
    return null;
  }
  if (!rec.channels) {
    c.sendError(
      channelError('not_multi_channel_session', `${action} needs a multi_channel session.`, {
        action,
        recognition_mode: rec.start.recognitionMode,
      }),
    );
    return null;
  }
  if (c.paused) {
    c.sendError(
      channelError('channel_action_while_paused', `${action} is not accepted while the session is paused; resume first.`, { action }),
    );
    return null;
  }
  return rec;
}

function languagesOf(c: ActionContext, rec: Recording): ChannelLanguages {
  return {
    allowed: rec.start.transcriptionLanguages,
    serves: (l) => c.ports.engines.servesTranscription(l),
    served: () => c.ports.engines.transcriptionLanguages(),
  };
}

function channelsPayload(rec: Recording): ChannelInfo[] {
  return (rec.channels?.specs ?? []).map((s) => ({ channel_id: s.channelId, language: s.language, label: s.label }));
}

export async function addChannelAction(c: ActionContext, data: Data): Promise<void> {
  const rec = channelSession(c, 'add_channel');
  const set = rec?.channels;
  if (!rec || !set) return;
  const spec = parseChannel(data, 'channel', languagesOf(c, rec));
  if (spec instanceof AppError) {
    c.sendError(spec);
    return;
  }
  if (set.ids.includes(spec.channelId)) {
    c.sendError(channelError('channel_id_in_use', `Channel ${spec.channelId} is already in use.`, { channel_id: spec.channelId }));
    return;
  }
  if (set.ids.length >= MAX_CHANNELS) {
    c.sendError(channelError('too_many_channels', `At most ${MAX_CHANNELS} channels.`, { max: MAX_CHANNELS }));
    return;
  }
  await c.ports.assertSttStreams(c.principal, set.ids.length + 1);
  const busy = set.cooldown.take(spec.channelId);
  if (busy) {
    c.sendError(busy);
    return;
  }
  await set.add(spec);
  rec.setSpeakerLabel(String(spec.channelId), spec.label);
  rec.events.publish({
    event: 'channel_added',
    data: { task_id: rec.taskId, channel_id: spec.channelId, language: spec.language, label: spec.label, channels: channelsPayload(rec) },
  });
}

export async function removeChannelAction(c: ActionContext, data: Data): Promise<void> {
  const rec = channelSession(c, 'remove_channel');
  const set = rec?.channels;
  if (!rec || !set) return;
  const id = existingChannelId(data, set.ids);
  if (id instanceof AppError) {
    c.sendError(id);
    return;
  }
  if (set.ids.length === 1) {
    c.sendError(
      channelError('channel_remove_not_allowed', 'The last channel cannot be removed; stop the recording instead.', { channel_id: id }),
    );
    return;
  }
  const busy = set.cooldown.take(id);
  if (busy) {
    c.sendError(busy);
    return;
  }
  await set.remove(id);
  rec.events.publish({ event: 'channel_removed', data: { task_id: rec.taskId, channel_id: id, channels: channelsPayload(rec) } });
}

export async function setChannelLanguageAction(c: ActionContext, data: Data): Promise<void> {
  const rec = channelSession(c, 'set_channel_language');
  const set = rec?.channels;
  if (!rec || !set) return;
  const id = existingChannelId(data, set.ids);
  if (id instanceof AppError) {
    c.sendError(id);
    return;
  }
  const language = parseChannelLanguage(data, languagesOf(c, rec));
  if (language instanceof AppError) {
    c.sendError(language);
    return;
  }
  const busy = set.cooldown.take(id);
  if (busy) {
    c.sendError(busy);
    return;
  }
  const previous = set.language(id) as string;
  if (language !== previous) await set.setLanguage(id, language);
  rec.events.publish({
    event: 'channel_language_set',
    data: { task_id: rec.taskId, channel_id: id, language, previous_language: previous, channels: channelsPayload(rec) },
  });
}
