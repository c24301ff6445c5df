/**
 * The session actions beyond the state machine, each answering with its named event:
 * config -> config_updated, set_name -> name_updated, set_summary -> summary_updated,
 * retranslate -> (charged) translation events then retranslate_done, switch_language ->
 * language_switched. Parameters are parsed by actions.ts; the connection hands over what
 * they need (ActionContext) at dispatch time.
 */
import { glossaryCounts } from '../glossary/conflicts.js';
import type { Glossary } from '../glossary/index.js';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import { parseConfig, parseRetranslate, parseSetName, parseSetSummary, parseSwitchLanguage } from './actions.js';
import type { RealtimePorts } from './ports.js';
import { eventMessage } from './protocol.js';
import type { Recording } from './recording.js';

export interface ActionContext {
  /** The connection's recording (running or finishing), if any. */
  recording: Recording | null;
  /** The recording if it is running (started or paused). */
  running: Recording | null;
  /** The running recording is paused. */
  paused: boolean;
  /** The start's fields as sent (set_summary re-validates against them). */
  rawStart: Record<string, unknown>;
  principal: Principal;
  ports: RealtimePorts;
  setGlossary(glossary: Glossary | null): void;
  send(text: string): void;
  sendError(err: AppError): void;
}

type Data = Record<string, unknown>;

/** The running recording, or null after telling the client there is none. */
function running(c: ActionContext, action: string): Recording | null {
  if (c.running) return c.running;
  c.sendError(new AppError('session_not_started', { variant: 'websocket', details: { action } }));
  return null;
}

/** config: the connection's glossary (validated with the config_* codes). Allowed before start too. */
export function configAction(c: ActionContext, data: Data): void {
  const parsed = parseConfig(data, c.ports.glossaryLimits);
  if (parsed instanceof AppError) {
    c.sendError(parsed);
    return;
  }
  c.setGlossary(parsed.glossary);
  const counts = parsed.glossary
    ? glossaryCounts(parsed.glossary)
    : { terminology: 0, fuzzy_correction: 0, translation_dict: 0, languages: [] };
  c.send(eventMessage('config_updated', { ...counts, cleared: parsed.glossary === null, task_id: c.recording?.taskId ?? null }));
}

export async function setNameAction(c: ActionContext, data: Data): Promise<void> {
  const rec = running(c, 'set_name');
  if (!rec) return;
  const name = parseSetName(data);
  if (name instanceof AppError) {
    c.sendError(name);
    return;
  }
  await c.ports.renameTask(c.principal, rec.taskId, name);
  c.send(eventMessage('name_updated', { task_id: rec.taskId, name, name_source: 'user' }));
}

export function setSummaryAction(c: ActionContext, data: Data): void {
  const rec = running(c, 'set_summary');
  if (!rec) return;
  const parsed = parseSetSummary(data, c.rawStart, c.ports.engines, c.ports.templates);
  if (parsed instanceof AppError) {
    c.sendError(parsed);
    return;
  }
  rec.setSummary(parsed.summary);
  const s = parsed.summary;
  c.send(
    eventMessage('summary_updated', {
      task_id: rec.taskId,
      enabled: s !== null,
      summary_mode: s?.mode ?? null,
      summary_template: s ? (s.mode === 'custom' ? s.promptSlug : s.template) : null,
      summary_language: s?.language ?? null,
      summary_plain_text: s?.plainText ?? null,
    }),
  );
}

export async function retranslateAction(c: ActionContext, data: Data): Promise<void> {
  const rec = running(c, 'retranslate');
  if (!rec) return;
  const parsed = parseRetranslate(
    data,
    rec.start,
    rec.sentences.map((s) => s.sid),
  );
  if (parsed instanceof AppError) {
    c.sendError(parsed);
    return;
  }
  // Charged like the SSE retranslation (src/retranslate); a refusal is an error, the session goes on.
  const usageId = await c.ports.retranslation.charge(c.principal, rec.taskId, parsed.sids, parsed.targets.length);
  const r = await rec.retranslate(parsed.sids, parsed.targets);
  if (r.updated === 0 && r.failed > 0) await c.ports.retranslation.refund(usageId);
  c.send(
    eventMessage('retranslate_done', {
      task_id: rec.taskId,
      sids: parsed.sids,
      target_languages: parsed.targets,
      total_updated: r.updated,
      failed: r.failed,
    }),
  );
}

export async function switchLanguageAction(c: ActionContext, data: Data): Promise<void> {
  const rec = running(c, 'switch_language');
  if (!rec) return;
  const language = parseSwitchLanguage(data, rec.start);
  if (language instanceof AppError) {
    c.sendError(language);
    return;
  }
  const previous = rec.language;
  if (language !== previous) await rec.switchLanguage(language);
  c.send(eventMessage('language_switched', { task_id: rec.taskId, language, previous_language: previous }));
}
