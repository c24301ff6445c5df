/**
 * The plan features a live recording uses, with the start field that asks for each: checked
 * at start (`plan_feature_not_allowed`, connection kept) and again before every further
 * billed minute, so a recording whose plan lost one of them stops (spec plan_feature_not_allowed).
 */
import type { StartRequest } from './start.js';

export function planFeatures(start: StartRequest): Array<{ feature: string; field: string }> {
  const used = [{ feature: start.type === 'broadcast' ? 'broadcast' : 'transcribe', field: 'type' }];
  if (start.realtimeTranslation && start.translationLanguages.length) used.push({ feature: 'translation', field: 'translation_languages' });
  if (start.recognitionMode !== 'single') used.push({ feature: start.recognitionMode, field: 'recognition_mode' });
  if (start.ttsEnabled) used.push({ feature: 'tts', field: 'tts_enabled' });
  return used;
}
