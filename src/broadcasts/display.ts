/**
 * Display strings for viewers (spec: server-fixed message strings are display text only and
 * must not be parsed). The spec's are Traditional Chinese; Parley picks Traditional Chinese
 * for viewers who asked for Chinese (lang or Accept-Language zh-*), English otherwise.
 */
import { baseLanguage, chineseScript, normalizeLanguage } from '../languages.js';

const STRINGS = {
  public_channel: { en: 'This broadcast is public; no password is needed.', zh: '此直播為公開頻道，無需密碼。' },
  connected: { en: 'Connected to the broadcast.', zh: '已連線至直播。' },
  standby: { en: 'The broadcast has not started yet.', zh: '直播尚未開始。' },
  phase_live: { en: 'The broadcast is live.', zh: '直播已開始。' },
  recording_started: { en: 'Captions start now.', zh: '字幕開始。' },
  paused: { en: 'The broadcast is paused.', zh: '直播已暫停。' },
  resumed: { en: 'The broadcast has resumed.', zh: '直播已繼續。' },
  ended: { en: 'The broadcast has ended.', zh: '直播已結束。' },
  host_disconnected: { en: 'The host lost the connection; waiting for the host.', zh: '主持人連線中斷，等待重新連線。' },
  host_reconnected: { en: 'The host is back.', zh: '主持人已重新連線。' },
  admitted: { en: 'You are in: captions follow.', zh: '已進入直播，字幕即將顯示。' },
  kicked: { en: 'The broadcast access changed; verify the password again.', zh: '直播存取設定已變更，請重新驗證密碼。' },
  wait_minutes: { en: 'about {n} min', zh: '約 {n} 分鐘' },
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

export function display(key: DisplayKey, hint?: string | null, values: Record<string, string | number> = {}): string {
  return STRINGS[key][displayLanguage(hint)].replace(/\{(\w+)\}/g, (_, k: string) => String(values[k] ?? ''));
}
