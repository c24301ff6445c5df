/**
 * Language codes: the one place where BCP 47 tags are normalized and compared.
 * Everything past the edge of the system (HTTP, WebSocket, CLI) calls `normalizeLanguage`
 * once; everything inside compares normalized tags.
 */

/** Canonical casing: language lower, script title, region upper ("zh-hant-tw" -> "zh-Hant-TW"). */
export function normalizeLanguage(input: string): string | null {
  const raw = input.trim().replace(/_/g, '-');
  if (!/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(raw)) return null;
  const parts = raw.split('-');
  const out = [parts[0]!.toLowerCase()];
  for (const p of parts.slice(1)) {
    if (/^[A-Za-z]{4}$/.test(p)) out.push(p[0]!.toUpperCase() + p.slice(1).toLowerCase());
    else if (/^([A-Za-z]{2}|\d{3})$/.test(p)) out.push(p.toUpperCase());
    else out.push(p.toLowerCase());
  }
  return out.join('-');
}

/** The primary language subtag: "en-US" -> "en", "zh-TW" -> "zh". */
export function baseLanguage(tag: string): string {
  return tag.split('-')[0]!.toLowerCase();
}

/** Chinese variants the spec distinguishes (zh-TW, zh-CN, zh-HK, and similar). */
export function isChinese(tag: string): boolean {
  const b = baseLanguage(tag);
  return b === 'zh' || b === 'cmn' || b === 'yue';
}

/**
 * The Chinese script a tag implies: Traditional for TW/HK/MO and Hant, Simplified otherwise.
 * Returns null for non-Chinese tags.
 */
export function chineseScript(tag: string): 'Hant' | 'Hans' | null {
  if (!isChinese(tag)) return null;
  const t = normalizeLanguage(tag) ?? tag;
  if (/-Hant\b/.test(t) || /-(TW|HK|MO)$/.test(t) || baseLanguage(t) === 'yue') return 'Hant';
  return 'Hans';
}

/**
 * Does an engine that declares `served` cover the requested `tag`?
 * "en" serves "en-US" and "en-GB"; "en-US" serves only "en-US"; "*" serves everything.
 * Chinese is script-sensitive: "zh-TW" is not served by an engine declaring only "zh-CN".
 */
export function languageServes(served: string, tag: string): boolean {
  if (served === '*') return true;
  const s = normalizeLanguage(served);
  const t = normalizeLanguage(tag);
  if (!s || !t) return false;
  if (s === t) return true;
  if (!s.includes('-')) return baseLanguage(t) === s || (s === 'zh' && isChinese(t));
  if (isChinese(s) && isChinese(t)) return chineseScript(s) === chineseScript(t) && !/-[A-Z]{2}$/.test(s);
  return false;
}

const LANGUAGE_NAMES = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });

/**
 * Is `tag` a well-formed tag whose language ICU knows ("en-US", "yue", "tlh" yes; "xx", "und"
 * no)? The spec's "supported language code" where no engine decides (e.g. a summary language).
 */
export function isKnownLanguage(tag: string): boolean {
  const t = normalizeLanguage(tag);
  if (!t) return false;
  try {
    return LANGUAGE_NAMES.of(baseLanguage(t)) !== undefined;
  } catch {
    return false;
  }
}
