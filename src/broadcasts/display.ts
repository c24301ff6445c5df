/**
 * Display strings for viewers (spec: server-fixed message strings are display text only and
 * must not be parsed). The spec's are Traditional Chinese; Parley picks Traditional Chinese
 * for viewers who asked for Chinese (lang or Accept-Language zh-*), English otherwise.
 */
import { baseLanguage, chineseScript, normalizeLanguage } from '../languages.js';

const STRINGS = {
  public_channel: { en: 'This broadcast is public; no password is needed.', zh: '此直播為公開頻道，無需密碼。' },
} as const;

export type DisplayKey = keyof typeof STRINGS;

/** The viewer's display language from a tag or an Accept-Language header ("zh-TW,zh;q=0.9,en;q=0.8"). */
export function displayLanguage(hint: string | undefined | null): 'en' | 'zh' {
  if (!hint) return 'en';
  const first = hint.split(',')[0]?.split(';')[0]?.trim() ?? '';
  const tag = normalizeLanguage(first);
  if (!tag) return 'en';
  return baseLanguage(tag) === 'zh' || chineseScript(tag) !== null ? 'zh' : 'en';
}

export function display(key: DisplayKey, hint?: string | null): string {
  return STRINGS[key][displayLanguage(hint)];
}
