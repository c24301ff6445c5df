/**
 * correct_sentence and undo_correction on a running recording: the same rules and codes as the
 * REST corrections (src/corrections/rules.ts), applied to the final sentences so far. The
 * revisions go to the same table (the task exists from the start), so an undo after the end
 * goes back through corrections made live. A correction is retranslated into the session's
 * translation languages (charged like the `retranslate` action for one sentence). The event
 * `sentence_corrected` goes through the session stream, so the owner, broadcast viewers,
 * floating-subtitle viewers, caption sinks and the live search index all get it; the
 * corrected sentence is what the recording stores at its end (exports, history).
 */
import {
  assertRevision,
  correctedEvent,
  parseActionSid,
  parseCorrection,
  parseRevision,
  type SentenceVersion,
} from '../corrections/rules.js';
import { planUndo } from '../corrections/service.js';
import { targetLanguages, translateCorrection } from '../corrections/translate.js';
import { AppError } from '../platform/errors/app-error.js';
import { wireCorrected } from '../stream/wire.js';
import type { SentenceInput } from '../tasks/store.js';
import { eventMessage } from './protocol.js';
import type { Recording } from './recording.js';
import type { ActionContext } from './session-actions.js';

type Data = Record<string, unknown>;
type Action = 'correct_sentence' | 'undo_correction';

/** The sentence as the recording holds it now (its translations from the translation part). */
function versionOf(rec: Recording, sid: number, origin: string): SentenceVersion {
  const translations: Record<string, string> = {};
  const errors: Record<string, string> = {};
  for (const [language, list] of rec.translations) {
    const t = list.get(sid);
    if (t?.error !== undefined) errors[language] = t.error;
    else if (t?.text !== undefined) translations[language] = t.text;
  }
  return { origin, translations, translationErrors: errors };
}

/** Writes a version into the recording: the sentence's text and each translation (what the end stores). */
function apply(rec: Recording, sentence: SentenceInput, v: SentenceVersion): void {
  sentence.origin = v.origin;
  const languages = new Set([...Object.keys(v.translations ?? {}), ...Object.keys(v.translationErrors ?? {}), ...rec.translations.keys()]);
  for (const language of languages) {
    const list = rec.translations.get(language) ?? new Map();
    rec.translations.set(language, list);
    const text = v.translations?.[language];
    const error = v.translationErrors?.[language];
    if (text !== undefined) list.set(sentence.sid, { sid: sentence.sid, text });
    else if (error !== undefined) list.set(sentence.sid, { sid: sentence.sid, error });
    else list.delete(sentence.sid);
  }
}

async function withSentence(c: ActionContext, action: Action, data: Data, run: (rec: Recording, s: SentenceInput) => Promise<void>) {
  const rec = c.running;
  if (!rec) {
    c.sendError(new AppError('session_not_started', { variant: 'websocket', details: { action } }));
    return;
  }
  try {
    const sid = parseActionSid(data);
    const sentence = rec.sentences.find((s) => s.sid === sid);
    if (!sentence) throw new AppError('sentence_not_found', { details: { task_id: rec.taskId, sid } });
    await run(rec, sentence);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    c.sendError(new AppError(err.code, { variant: 'websocket', message: err.message, details: { ...err.details, action } }));
  }
}

/** correct_sentence {sid, text, revision?}: the new text, retranslated, to every audience. */
export function correctSentenceAction(c: ActionContext, data: Data): Promise<void> {
  return withSentence(c, 'correct_sentence', data, async (rec, sentence) => {
    const input = parseCorrection(data);
    const current = (await c.ports.corrections.latest(rec.taskId, sentence.sid))?.revision ?? 0;
    assertRevision(input.revision, current);
    const before = versionOf(rec, sentence.sid, sentence.origin);
    // The same text again changes nothing: only the sender is answered (as REST answers it).
    if (input.text === sentence.origin) {
      c.send(
        eventMessage(
          'sentence_corrected',
          wireCorrected(correctedEvent(rec.taskId, sentence, current, 'correction', before.origin, before)),
        ),
      );
      return;
    }
    const translatable = rec.start.type !== 'record';
    const targets = translatable ? targetLanguages(rec.start.translationLanguages, before.translations, before.translationErrors) : [];
    const usageId = targets.length ? await c.ports.retranslation.charge(c.principal, rec.taskId, [sentence.sid], targets.length) : null;
    let version: SentenceVersion;
    let revision: number | null;
    try {
      const language = sentence.language ?? rec.language;
      const t = await translateCorrection(
        { engines: rec.deps.engines, logger: rec.deps.logger },
        { sid: sentence.sid, text: input.text, language },
        targets,
        rec.glossary,
      );
      version = { origin: input.text, translations: t.translations, translationErrors: t.errors };
      revision = await c.ports.corrections.write(rec.taskId, sentence.sid, {
        current,
        recognized: before,
        kind: 'correction',
        basedOn: current,
        version,
        updateSentence: false,
      });
      if (revision === null) throw new AppError('sentence_revision_conflict', { details: { revision: current + 1 } });
      // Nothing could be translated: the text is corrected, the retranslation is not billed.
      if (usageId && Object.keys(t.translations).length === 0) await c.ports.retranslation.refund(usageId);
    } catch (err) {
      if (usageId) await c.ports.retranslation.refund(usageId).catch(() => {});
      throw err;
    }
    apply(rec, sentence, version);
    rec.events.publish({
      event: 'sentence_corrected',
      data: correctedEvent(rec.taskId, sentence, revision, 'correction', before.origin, version),
    });
  });
}

/** undo_correction {sid, revision?}: the text and translations the latest change replaced. */
export function undoCorrectionAction(c: ActionContext, data: Data): Promise<void> {
  return withSentence(c, 'undo_correction', data, async (rec, sentence) => {
    const expected = parseRevision(data);
    const plan = planUndo(await c.ports.corrections.history(rec.taskId, sentence.sid), expected);
    const before = versionOf(rec, sentence.sid, sentence.origin);
    const revision = await c.ports.corrections.write(rec.taskId, sentence.sid, { ...plan, recognized: before, updateSentence: false });
    if (revision === null) throw new AppError('sentence_revision_conflict', { details: { revision: plan.current + 1 } });
    apply(rec, sentence, plan.version);
    rec.events.publish({
      event: 'sentence_corrected',
      data: correctedEvent(rec.taskId, sentence, revision, 'undo', before.origin, plan.version),
    });
  });
}
