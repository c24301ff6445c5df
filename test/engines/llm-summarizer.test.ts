import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { EngineError } from '../../src/engines/errors.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import { createOpenAiChat } from '../../src/engines/remote/openai-chat.js';
import { llmSummarizerFactory } from '../../src/engines/summary/factory.js';
import { createLlmSummarizer } from '../../src/engines/summary/llm-summarizer.js';
import { stripMarkdown } from '../../src/engines/summary/prompts.js';
import type { SummarizeOptions } from '../../src/engines/types.js';
import { type OpenAiServer, startOpenAiServer } from '../support/openai-server.js';

let server: OpenAiServer;
beforeAll(async () => {
  server = await startOpenAiServer();
});
afterAll(() => server.close());

const summarizer = (over: { maxTokens?: number; timeLimitMs?: number } = {}) =>
  createLlmSummarizer(createOpenAiChat({ baseUrl: server.url, model: 'm', timeoutMs: 5000, retries: 0 }), {
    maxTokens: 500,
    timeLimitMs: 5000,
    ...over,
  });

const segments = [
  'Alice: we should ship the release on Friday.',
  'Bob: the FORBIDDEN topic came up again.',
  'Carol: the budget is approved.',
  'Dan: QA signs off on Thursday.',
  'Eve: FORBIDDEN remark here as well.',
  'Frank: next meeting on Monday.',
];
const template = {
  slug: 'meeting',
  systemPrompt: 'You are a meeting assistant.',
  templatePrompt: 'Summarize the meeting for the team.',
  outputFormat: '## Key points\n## Decisions\n## Action items',
};
const lastMessages = () => (server.requests.at(-1)!.json as { messages: Array<{ role: string; content: string }> }).messages;
const base = (o: Partial<SummarizeOptions> = {}): SummarizeOptions => ({
  segments: segments.filter((s) => !s.includes('FORBIDDEN')),
  language: 'de',
  template,
  plainText: false,
  ...o,
});

describe('llm-summarizer', () => {
  it('level 1: template prompt, output sections, summary language; streams cumulative text; reports usage', async () => {
    server.reply = () => '## Key points\nRelease on Friday.';
    const seen: string[] = [];
    const r = await summarizer().summarize(base({ onDelta: (t) => seen.push(t) }));
    expect(r.text).toBe('## Key points\nRelease on Friday.');
    expect(r.fallbackLevel).toBeUndefined();
    expect(r.truncated).toBe(false);
    expect(r.usage.output).toBeGreaterThan(0);
    expect(r.usage.input).toBeGreaterThan(0);
    expect(seen.at(-1)).toBe(r.text);
    expect(seen.length).toBeGreaterThan(1);
    expect(seen[1]?.startsWith(seen[0] ?? 'x')).toBe(true); // cumulative
    const [sys, user] = lastMessages();
    expect(sys?.content).toContain('You are a meeting assistant.');
    expect(sys?.content).toContain('German (de)');
    expect(user?.content).toContain('Summarize the meeting for the team.');
    expect(user?.content).toContain('## Decisions');
    expect(user?.content).toContain('Carol: the budget is approved.');
  });

  it('custom prompt replaces the template; plain text instructs no Markdown and strips what comes anyway', async () => {
    server.reply = () => '## Summary\n* **Release** on `Friday`\n* Budget approved';
    const seen: string[] = [];
    const r = await summarizer().summarize(
      base({ template: undefined, customPrompt: 'List the decisions only.', plainText: true, onDelta: (t) => seen.push(t) }),
    );
    expect(r.text).toBe('Summary\n- Release on Friday\n- Budget approved');
    expect(seen.at(-1)?.trim()).toBe(r.text);
    const [sys, user] = lastMessages();
    expect(sys?.content).toContain('no Markdown');
    expect(user?.content).toContain('List the decisions only.');
    expect(user?.content).not.toContain('## Decisions');
  });

  it('reports truncated at the output limit', async () => {
    server.reply = () => 'one two three four five six seven eight nine ten';
    const r = await summarizer({ maxTokens: 4 }).summarize(base());
    expect(r).toMatchObject({ text: 'one two three four', truncated: true });
  });

  it('reports truncated and keeps the text when the time limit cuts the stream', async () => {
    const long = 'a b c d e f g h i j k l m n o p q r s t u v w x y z';
    server.reply = () => long;
    server.chunkDelayMs = 80;
    try {
      const r = await summarizer({ timeLimitMs: 1000 }).summarize(base());
      expect(r.truncated).toBe(true);
      expect(r.text.length).toBeGreaterThan(0);
      expect(r.text.length).toBeLessThan(long.length);
    } finally {
      server.chunkDelayMs = 0;
    }
  });

  it('level 2: a refused template prompt is retried with neutral instructions', async () => {
    server.reply = () => 'Neutral summary.';
    const r = await summarizer().summarize(base({ template: { ...template, templatePrompt: 'Roast everyone, FORBIDDEN style.' } }));
    expect(r).toMatchObject({ text: 'Neutral summary.', fallbackLevel: 2 });
    expect(r.droppedSegments).toBeUndefined();
    expect(lastMessages()[0]?.content).toContain('neutral record-keeping assistant');
  });

  it('level 3: refused segments are found and omitted, reported by original index', async () => {
    server.reply = () => 'Summary without the refused parts.';
    const r = await summarizer().summarize(base({ segments }));
    expect(r).toMatchObject({ text: 'Summary without the refused parts.', fallbackLevel: 3, droppedSegments: [1, 4] });
    const finalPrompt = lastMessages()[1]?.content ?? '';
    expect(finalPrompt).toContain('Frank: next meeting on Monday.');
    expect(finalPrompt).not.toContain('FORBIDDEN');
  });

  it('level 3 also works when the provider refuses with a 400 content_filter error', async () => {
    server.filterMode = 'error';
    try {
      const r = await summarizer().summarize(base({ segments }));
      expect(r).toMatchObject({ fallbackLevel: 3, droppedSegments: [1, 4] });
    } finally {
      server.filterMode = 'finish';
    }
  });

  it('throws llm_content_filtered only when every path is refused', async () => {
    const err = await summarizer()
      .summarize(base({ segments: ['FORBIDDEN one', 'FORBIDDEN two'] }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).code).toBe('llm_content_filtered');
  });

  it('passes other failures through with their own code', async () => {
    server.script.push({ status: 503 });
    const err = await summarizer()
      .summarize(base())
      .catch((e: unknown) => e);
    expect((err as EngineError).code).toBe('llm_provider_error');
  });

  it('is registered from the LLM settings and preferred by the registry; unavailable without an LLM', async () => {
    const logger = pino({ level: 'silent' });
    const on = await EngineRegistry.create({ config: loadConfig({ PARLEY_REMOTE_LLM_URL: server.url }), modelsDir: '/nowhere', logger }, [
      llmSummarizerFactory,
    ]);
    expect(on.find({ kind: 'summarizer', language: 'ja' })?.id).toBe('llm-summarizer');
    const off = await EngineRegistry.create({ config: loadConfig({}), modelsDir: '/nowhere', logger }, [llmSummarizerFactory]);
    expect(off.status[0]?.reason).toMatch(/PARLEY_REMOTE_LLM_URL.*enable-llama|PARLEY_REMOTE_LLM_URL.*not downloaded/);
  });

  it('strips Markdown for plain text without touching ordinary prose', () => {
    expect(stripMarkdown('Costs rose 5*3 times; see file_name_here.')).toBe('Costs rose 5*3 times; see file_name_here.');
    expect(stripMarkdown('# Title\n> quote\n[site](https://x.org)')).toBe('Title\nquote\nsite (https://x.org)');
  });
});
