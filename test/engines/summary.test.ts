import { describe, expect, it } from 'vitest';
import { extractiveSummarizerFactory } from '../../src/engines/builtin/extractive-summarizer.js';
import { cleanSentence, splitSentences } from '../../src/engines/builtin/extractive-summarizer-text.js';
import type { Summarizer, SummaryTemplateSpec } from '../../src/engines/types.js';

const summarizer = (await extractiveSummarizerFactory.create({} as never)) as Summarizer;

const meeting: SummaryTemplateSpec = {
  slug: 'meeting',
  systemPrompt: 'You summarize meetings.',
  templatePrompt: 'Summarize the meeting.',
  outputFormat: '## Key points\n## Decisions\n## Action items\n## Open questions',
};

const EN = [
  'Good morning everyone, thanks for joining the quarterly planning meeting.',
  'The main topic today is the launch of the mobile app in Spain and Portugal.',
  'Marketing reported that the mobile app beta had twelve thousand users in Spain last month.',
  'Support tickets for the mobile app dropped by a third after the last release.',
  'After some discussion we decided to launch the mobile app in Portugal in March.',
  'Maria will send the updated launch budget to finance by Friday.',
  'The weather was nice during the offsite.',
  'John needs to prepare the Portuguese translation of the app store page.',
  'Everyone agreed the beta results for the mobile app in Spain are strong.',
];

const ZH = [
  '大家好，今天的會議主要討論新產品在台灣的上市計畫。',
  '行銷部報告說新產品的試用版上個月在台灣有一萬名使用者。',
  '新產品的客服問題在最近一次更新後減少了三分之一。',
  '經過討論，我們決定三月在台灣正式上市新產品。',
  '小王負責在星期五之前把新的預算寄給財務部。',
  '中午的便當很好吃。',
];

describe('extractive summarizer', () => {
  it('splits Chinese and Western sentences, keeping abbreviations and punctuation', () => {
    expect(splitSentences('Dr. Smith arrived. Is it done? Yes!')).toEqual(['Dr. Smith arrived.', 'Is it done?', 'Yes!']);
    expect(splitSentences('今天開會。決定了嗎？決定了！下一步；再說')).toEqual([
      '今天開會。',
      '決定了嗎？',
      '決定了！',
      '下一步；',
      '再說',
    ]);
  });

  it('fills the template sections of an English meeting, in the original order, leaving out the ones the text does not support', async () => {
    const deltas: string[] = [];
    const r = await summarizer.summarize({
      segments: EN,
      language: 'en',
      template: meeting,
      plainText: false,
      onDelta: (t) => deltas.push(t),
    });
    const sections = r.text.split('\n\n');
    expect(sections.map((s) => s.split('\n')[0])).toEqual(['## Key points', '## Decisions', '## Action items']);
    expect(sections[1]).toContain('- After some discussion we decided to launch the mobile app in Portugal in March.');
    expect(sections[1]).toContain('- Everyone agreed the beta results for the mobile app in Spain are strong.');
    expect(sections[2]).toBe(
      '## Action items\n- Maria will send the updated launch budget to finance by Friday.\n- John needs to prepare the Portuguese translation of the app store page.',
    );
    expect(r.text).not.toContain('none noted');
    // Key points: central sentences about the app, not the weather.
    expect(sections[0]).toContain('mobile app');
    expect(sections[0]).not.toContain('weather');
    expect(deltas.at(-1)).toBe(r.text);
    expect(deltas.length).toBe(3);
    expect(r.usage).toEqual({ input: EN.join('\n').length, output: r.text.length });
    expect(r.truncated).toBe(false);
  });

  it('plainText gives no markdown', async () => {
    const r = await summarizer.summarize({ segments: EN, language: 'en', template: meeting, plainText: true });
    expect(r.text).not.toMatch(/^#|^- |\*\*/m);
    expect(r.text.split('\n\n')[1]!.split('\n')[0]).toBe('Decisions');
  });

  it('summarizes Chinese with Chinese cue words, no empty sections', async () => {
    const r = await summarizer.summarize({ segments: ZH, language: 'zh-TW', template: meeting, plainText: false });
    const [key, decisions, actions, open] = r.text.split('\n\n');
    expect(decisions).toBe('## Decisions\n- 經過討論，我們決定三月在台灣正式上市新產品。');
    expect(actions).toBe('## Action items\n- 小王負責在星期五之前把新的預算寄給財務部。');
    expect(open).toBeUndefined();
    expect(r.text).not.toContain('未提及');
    expect(key).toContain('新產品');
    expect(key).not.toContain('便當');
  });

  it('without a template it writes one key-points section; empty text is summary_text_empty', async () => {
    const r = await summarizer.summarize({ segments: EN, language: 'en', plainText: false });
    expect(r.text.startsWith('## Key points\n- ')).toBe(true);
    expect(r.text.split('\n\n')).toHaveLength(1);
    await expect(summarizer.summarize({ segments: ['  '], language: 'en', plainText: false })).rejects.toMatchObject({
      code: 'summary_text_empty',
    });
  });

  it('cleans spoken fillers, openers and doubled words from the sentences it keeps', async () => {
    expect(cleanSentence('um so we uh decided to to ship on friday')).toBe('We decided to ship on friday.');
    expect(cleanSentence('and so my fellow americans ask not')).toBe('My fellow americans ask not.');
    expect(cleanSentence('It was, you know, a good quarter.')).toBe('It was, a good quarter.');
    expect(cleanSentence("well i think i'm ready")).toBe("I think I'm ready.");
    expect(cleanSentence('äh wir haben ähm entschieden')).toBe('Wir haben entschieden.');
    expect(cleanSentence('嗯，我們決定三月上市。')).toBe('我們決定三月上市。');
    expect(cleanSentence('um uh')).toBe('');
  });

  it('a transcript too short to summarize comes back cleaned and whole, marked tooShort', async () => {
    const r = await summarizer.summarize({
      segments: ['and so my fellow americans ask not what your country can do for you ask what you can do for your country'],
      language: 'en',
      template: meeting,
      plainText: false,
    });
    expect(r).toMatchObject({
      text: 'My fellow americans ask not what your country can do for you ask what you can do for your country.',
      tooShort: true,
      truncated: false,
    });
    const long = await summarizer.summarize({ segments: EN, language: 'en', template: meeting, plainText: false });
    expect(long.tooShort).toBeUndefined();
  });

  it('fills Participants only from self-introductions, and says it cannot follow instructions', async () => {
    const intro = ['Hello, my name is Maria Lopez and I lead marketing.', "I'm John, I handle the translations.", ...EN];
    const withNames = await summarizer.summarize({
      segments: intro,
      language: 'en',
      template: { ...meeting, outputFormat: '## Participants\n## Key points' },
      plainText: false,
    });
    expect(withNames.text.startsWith('## Participants\n- Maria Lopez\n- John\n\n## Key points\n')).toBe(true);
    const without = await summarizer.summarize({
      segments: EN,
      language: 'en',
      template: { ...meeting, outputFormat: '## Participants\n## Key points' },
      plainText: false,
    });
    expect(without.text.startsWith('## Key points\n')).toBe(true);
    expect(summarizer.capabilities).toMatchObject({ instructions: false });
  });
});
