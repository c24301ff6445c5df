/**
 * rename_speaker, reassign_speaker, merge_speakers on a running recording: the same rules and
 * codes as the REST speaker endpoints (src/tasks/speaker-rules.ts), applied to the sentences
 * so far; the events speaker_renamed, speaker_reassigned, speakers_merged go through the
 * session stream, so the owner and every viewer (broadcast, floating subtitles) get them.
 */
import { AppError } from '../platform/errors/app-error.js';
import {
  assertSpeakerMode,
  parseMerge,
  parseReassign,
  parseRename,
  planMerge,
  planReassign,
  planRename,
  type SpeakerOp,
} from '../tasks/speaker-rules.js';
import type { ActionContext } from './session-actions.js';

type Data = Record<string, unknown>;

const ACTION: Record<SpeakerOp, string> = { rename: 'rename_speaker', reassign: 'reassign_speaker', merge: 'merge_speakers' };

export function speakerAction(c: ActionContext, op: SpeakerOp, data: Data): void {
  const rec = c.running;
  if (!rec) {
    c.sendError(new AppError('session_not_started', { variant: 'websocket', details: { action: ACTION[op] } }));
    return;
  }
  try {
    assertSpeakerMode(rec.start.recognitionMode, op);
    const s = rec.speakerSnapshot();
    if (op === 'rename') rec.applySpeakerEdit(planRename(s, parseRename(data)));
    else if (op === 'merge') rec.applySpeakerEdit(planMerge(s, parseMerge(data)));
    else {
      const { sid, target } = parseReassign(data);
      const sentence = rec.sentences.find((x) => x.sid === sid);
      rec.applySpeakerEdit(planReassign(s, sid, target, sentence ? { speakerId: sentence.speakerId ?? null } : null));
    }
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    c.sendError(new AppError(err.code, { variant: 'websocket', message: err.message, details: { ...err.details, action: ACTION[op] } }));
  }
}
