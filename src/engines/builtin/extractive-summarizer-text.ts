/**
 * Text helpers of the extractive summarizer: a sentence splitter that knows Chinese and
 * Japanese full-width punctuation, tokens (words for alphabetic scripts, character bigrams
 * for CJK, which has no spaces), TextRank scores, and per-language cue words that mark
 * decisions, action items and open questions.
 */

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
/** Abbreviations whose final period does not end a sentence. */
const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'st',
  'vs',
  'etc',
  'e.g',
  'i.e',
  'approx',
  'no',
  'sr',
  'sra',
  'mme',
  'z.b',
  'bzw',
]);

export function isCjkText(text: string): boolean {
  const letters = [...text].filter((c) => /\p{L}/u.test(c));
  return letters.length > 0 && letters.filter((c) => CJK.test(c)).length * 2 >= letters.length;
}

/** Splits text into sentences on 。！？；!?. and line breaks, keeping the punctuation. */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  const chars = [...text];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\n' || c === '\r') {
      if (cur.trim()) out.push(cur.trim());
      cur = '';
      continue;
    }
    cur += c;
    if ('。！？；!?…'.includes(c)) {
      // Keep closing quotes and repeated marks with the sentence.
      while (i + 1 < chars.length && '」』”’"\')）!?！？'.includes(chars[i + 1]!)) cur += chars[++i]!;
      out.push(cur.trim());
      cur = '';
    } else if (c === '.') {
      const next = chars[i + 1];
      const word = /([\p{L}.]+)\.$/u.exec(cur)?.[1]?.toLowerCase() ?? '';
      const endsHere = next === undefined || /\s/.test(next);
      const abbreviation = ABBREVIATIONS.has(word) || (/^\p{Lu}$/u.test(word.toUpperCase()) && word.length === 1);
      if (endsHere && !abbreviation) {
        out.push(cur.trim());
        cur = '';
      }
    }
  }
  if (cur.trim()) out.push(cur.trim());
  return out.filter((s) => /[\p{L}\p{N}]/u.test(s));
}

const STOPWORDS: Record<string, string[]> = {
  en: 'the a an and or but if of to in on at for with by from as is are was were be been being it its this that these those we you he she they i me my our your their them us do does did have has had not no so then than there here what which who will would can could should may might just also about into over very'.split(
    ' ',
  ),
  es: 'el la los las un una unos unas y o pero de del al a en con por para que es son fue ser se lo le les nos su sus este esta estos estas eso muy más como ya no sí'.split(
    ' ',
  ),
  fr: 'le la les un une des et ou mais de du au aux à en avec par pour que qui est sont était être se ce cet cette ces il elle ils elles nous vous je ne pas plus très comme'.split(
    ' ',
  ),
  de: 'der die das ein eine einen und oder aber von zu im in an auf für mit durch als ist sind war sein sich es dies diese wir sie er ich nicht kein sehr auch noch'.split(
    ' ',
  ),
  pt: 'o a os as um uma e ou mas de do da dos das em no na com por para que é são foi ser se ele ela eles nós não muito como'.split(' '),
  it: 'il lo la i gli le un una e o ma di del della a in con per che è sono era essere si non molto come'.split(' '),
};
const STOP = new Set(Object.values(STOPWORDS).flat());

/** Tokens for similarity: CJK character bigrams, or lower-case content words. */
export function tokens(sentence: string): string[] {
  if (isCjkText(sentence)) {
    const han = [...sentence].filter((c) => CJK.test(c));
    if (han.length < 2) return han;
    return han.slice(1).map((c, i) => han[i]! + c);
  }
  return (sentence.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? []).filter((w) => w.length > 1 && !STOP.has(w));
}

/**
 * TextRank over sentence similarity (shared tokens normalised by log lengths), on sparse
 * neighbour lists: the power iteration costs the number of similar pairs, not n².
 */
export function textRank(sentences: string[], iterations = 30, damping = 0.85): number[] {
  const sets = sentences.map((s) => new Set(tokens(s)));
  const n = sentences.length;
  const neighbours: Array<Array<[number, number]>> = sets.map(() => []);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const a = sets[i]!;
      const b = sets[j]!;
      let shared = 0;
      for (const t of a.size <= b.size ? a : b) if ((a.size <= b.size ? b : a).has(t)) shared++;
      if (!shared) continue;
      const sim = shared / (Math.log(a.size + 1) + Math.log(b.size + 1));
      neighbours[i]!.push([j, sim]);
      neighbours[j]!.push([i, sim]);
      out[i]! += sim;
      out[j]! += sim;
    }
  let score = new Float64Array(n).fill(1);
  for (let it = 0; it < iterations; it++) {
    const next = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (const [j, w] of neighbours[i]!) sum += (w / out[j]!) * score[j]!;
      next[i] = 1 - damping + damping * sum;
    }
    score = next;
  }
  return [...score];
}

/** Sentences per TextRank block: long transcripts are ranked block by block (see blockRank). */
export const RANK_BLOCK = 150;

/**
 * TextRank in consecutive blocks of about RANK_BLOCK sentences, yielding to the event loop
 * between blocks. Centrality within a stretch of the conversation keeps every part of a long
 * meeting eligible (topics change) and bounds the cost at O(n · RANK_BLOCK) instead of O(n²);
 * scores of each block average 1, so they compare across blocks.
 */
export async function blockRank(sentences: string[], signal?: AbortSignal): Promise<number[]> {
  const blocks = Math.max(1, Math.ceil(sentences.length / RANK_BLOCK));
  const size = Math.ceil(sentences.length / blocks);
  const out: number[] = [];
  for (let i = 0; i < sentences.length; i += size) {
    if (i > 0) await new Promise((r) => setImmediate(r));
    signal?.throwIfAborted();
    out.push(...textRank(sentences.slice(i, i + size)));
  }
  return out;
}

export type SectionKind = 'decisions' | 'actions' | 'questions' | 'participants' | 'examples' | 'general';

/** What a template heading asks for, from its words (several languages). */
export function sectionKind(heading: string): SectionKind {
  const h = heading.toLowerCase();
  if (/participant|attendee|speaker|present|asistentes|participantes|teilnehmer|与会|與會|参与|參與|出席/.test(h)) return 'participants';
  if (/example|ejemplo|exemple|beispiel|例子|範例|示例/.test(h)) return 'examples';
  if (/decision|decided|resolution|decisi[oó]n|d[ée]cision|entscheid|beschl|decis[aã]o|决定|決定|决议|決議|結論|结论/.test(h))
    return 'decisions';
  if (
    /action|next step|to-?do|task|follow|assign|acci[oó]n|tarea|pr[oó]xim|aufgabe|ma[sß]nahm|à faire|行动|行動|待办|待辦|任务|任務|后续|後續|跟进|跟進/.test(
      h,
    )
  )
    return 'actions';
  if (/question|open issue|unresolved|risk|pregunta|pendiente|frage|offen|quest|问题|問題|疑问|疑問|风险|風險/.test(h)) return 'questions';
  return 'general';
}

/** Word cues match whole words (Unicode-aware: `\b` is ASCII-only in JS); CJK cues match as substrings. */
function cue(words: string[], cjk: string[], extra?: RegExp): RegExp {
  const w = `(?<![\\p{L}\\p{N}])(?:${words.join('|')})(?![\\p{L}\\p{N}])`;
  const parts = [w, ...cjk, ...(extra ? [extra.source] : [])];
  return new RegExp(parts.join('|'), 'iu');
}

const CUES: Record<CueKind, RegExp> = {
  decisions: cue(
    [
      'decided',
      'decide to',
      'agreed',
      'we agree',
      'decision',
      'approved',
      'settled on',
      'we will go with',
      'chose',
      'concluded',
      'decidimos',
      'acordamos',
      'decidió',
      'decisión',
      'aprobado',
      'aprobamos',
      'décidé',
      'décidons',
      'convenu',
      'décision',
      'approuvé',
      'beschlossen',
      'entschieden',
      'vereinbart',
      'entscheidung',
      'genehmigt',
    ],
    ['决定', '決定', '同意', '通过了', '通過了', '确定', '確定', '批准', '定案'],
  ),
  actions: cue(
    [
      'action item',
      'follow up',
      'follow-up',
      'needs? to',
      'has to',
      'have to',
      'is going to',
      'deadline',
      'assigned',
      'to-?do',
      'next step',
      'will (?:send|prepare|review|update|schedule|draft|check|write|call|share|finish|fix|book|contact)',
      'by (?:monday|tuesday|wednesday|thursday|friday|tomorrow|next week|the end of)',
      'se encargará',
      'hay que',
      'tiene que',
      'tenemos que',
      'enviará',
      'preparará',
      'revisará',
      'antes del',
      'próximo paso',
      'doit',
      'devra',
      'doivent',
      'se charge',
      'va envoyer',
      'enverra',
      'préparera',
      'avant le',
      'prochaine étape',
      'muss',
      'müssen',
      'bis (?:montag|dienstag|mittwoch|donnerstag|freitag)',
      'nächster schritt',
      'zuständig',
    ],
    [
      '负责',
      '負責',
      '跟进',
      '跟進',
      '下周',
      '下週',
      '之前完成',
      '需要',
      '安排',
      '截止',
      '待办',
      '待辦',
      '会发',
      '會發',
      '将发',
      '將發',
      '准备',
      '準備',
    ],
  ),
  examples: cue(
    ['for example', 'for instance', 'such as', 'e\\.g\\.', 'por ejemplo', 'par exemple', 'zum beispiel'],
    ['例如', '比如', '舉例', '举例'],
  ),
  questions: cue(
    ['open question', 'unclear', 'unresolved', 'tbd', 'not yet decided', 'pregunta', 'pendiente', 'question ouverte', 'offene frage'],
    ['待定', '未决', '未決', '尚未确定', '尚未確定'],
    /[?？]\s*$/,
  ),
};

/** Sections filled from cue words. */
export type CueKind = 'decisions' | 'actions' | 'questions' | 'examples';

export function matchesCue(kind: CueKind, sentence: string): boolean {
  return CUES[kind].test(sentence);
}

/** Fillers of spoken language that carry no content, removed wherever they stand. */
const FILLER_WORDS = ['um+', 'uh+', 'uhm+', 'erm+', 'er', 'ah+', 'hmm+', 'mhm', 'mm+', 'euh', 'äh+', 'ähm+', 'ehm+', 'eh'];
/** Discourse openers removed only at the start of a sentence ("and so my fellow americans" -> "my fellow americans"). */
const OPENERS = [
  'and so',
  'and then',
  'so',
  'and',
  'well',
  'okay so',
  'okay',
  'ok so',
  'ok',
  'right so',
  'like',
  'you know',
  'i mean',
  'pues',
  'bueno',
  'o sea',
  'bon',
  'alors',
  'also',
  'na ja',
];
/** Parenthetical fillers removed when set off by commas ("it was, you know, fine"). */
const PARENTHETICALS = ['you know', 'i mean', 'like', 'sort of', 'kind of', 'basically', 'o sea', 'tu sais', 'weißt du'];
const CJK_FILLERS = /[嗯呃额唔]+[，,、]?|(?<=^|[，,。])(?:那个|那個|就是说|就是說|然后|然後)[，,、]?/gu;
const W = '(?<![\\p{L}\\p{N}])';
const E = '(?![\\p{L}\\p{N}])';
const FILLER_RE = new RegExp(`${W}(?:${FILLER_WORDS.join('|')})${E}[,.…]*\\s*`, 'giu');
const OPENER_RE = new RegExp(`^(?:(?:${OPENERS.join('|')})${E}[,]?\\s+)+`, 'iu');
const PAREN_RE = new RegExp(`,\\s*(?:${PARENTHETICALS.join('|')}),\\s*`, 'giu');
/** "the the", "I I": a word said twice in a row. */
const REPEAT_RE = /(?<![\p{L}\p{N}])([\p{L}\p{N}']+)(?:\s+\1)+(?![\p{L}\p{N}])/giu;

/**
 * One sentence cleaned of spoken fillers: hesitations (um, uh, äh, 嗯), openers at its start
 * ("and so", "well", "okay"), comma-set fillers ("you know"), doubled words; then a capital
 * first letter and a final full stop. Content words are never touched.
 */
export function cleanSentence(sentence: string): string {
  if (isCjkText(sentence)) {
    return sentence
      .replace(CJK_FILLERS, '')
      .replace(/^[，,、\s]+/u, '')
      .trim();
  }
  let s = sentence
    .replace(PAREN_RE, ', ')
    .replace(FILLER_RE, '')
    .replace(REPEAT_RE, '$1')
    .replace(/\s+([,.;:!?])/g, '$1');
  s = s.replace(/\s{2,}/g, ' ').trim();
  let before = '';
  while (before !== s) {
    before = s;
    s = s.replace(OPENER_RE, '').replace(/^[,;:\s]+/, '');
  }
  s = s.replace(/(?<![\p{L}])i(?![\p{L}'])/gu, 'I').replace(/(?<![\p{L}])i'(?=[a-z])/gu, "I'");
  if (!/[\p{L}\p{N}]/u.test(s)) return '';
  s = s.charAt(0).toUpperCase() + s.slice(1);
  return /[.!?…"')\]]$/.test(s) ? s : `${s.replace(/[,;:]+$/, '')}.`;
}

/** Content words of a text (CJK counted in characters), to decide whether it is long enough to summarize. */
export function contentSize(text: string): number {
  if (isCjkText(text)) return [...text].filter((c) => CJK.test(c)).length / 2;
  return (text.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? []).length;
}

/** Self-introductions ("my name is Maria Lopez", "this is John speaking"): names the text itself states. */
export function introducedNames(sentence: string): string[] {
  const out: string[] = [];
  const name = "(\\p{Lu}[\\p{L}'’-]+(?:\\s\\p{Lu}[\\p{L}'’-]+)?)";
  const res = [
    new RegExp(`(?:[Mm]y name is|[Mm]y name's|I am|I'm|[Jj]e m'appelle|[Mm]e llamo|[Mm]i nombre es|[Ii]ch heiße)\\s+${name}`, 'gu'),
  ];
  for (const re of res)
    for (const m of sentence.matchAll(re)) if (m[1] && !/^(?:The|A|An|It|Not|Very|So|Going|Here)$/u.test(m[1])) out.push(m[1]);
  for (const m of sentence.matchAll(/我(?:叫|是)([\p{Script=Han}]{2,3})(?=[，,。！!、\s]|$)/gu)) if (m[1]) out.push(m[1]);
  return out;
}
