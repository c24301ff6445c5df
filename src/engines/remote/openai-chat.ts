/**
 * 'remote/openai-chat': any server that speaks OpenAI's /chat/completions (Ollama, vLLM,
 * llama.cpp server, LocalAI, hosted providers). Streams with SSE; token usage comes from the
 * final chunk (`stream_options.include_usage`) or, from servers that ignore that option, is
 * estimated at ~4 characters a token so billing never reads zero.
 */
import type { EngineFactory } from '../registry.js';
import type { ChatMessage, ChatOptions, ChatResult, LanguageModel } from '../types.js';
import { NOT_CONFIGURED, remoteEndpoint } from './endpoints.js';
import { llmError } from './errors.js';
import { bodyFailure, type RemoteEndpoint, RemoteFailure, remoteFetch, sseData } from './http.js';

interface ChatChunk {
  choices?: Array<{ delta?: { content?: string | null }; message?: { content?: string | null }; finish_reason?: string | null }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: { message?: string; code?: string };
}

export const estimateTokens = (text: string) => Math.ceil(text.length / 4);

export function createOpenAiChat(ep: RemoteEndpoint, id = 'remote/openai-chat'): LanguageModel {
  return {
    id,
    kind: 'llm',
    tier: 'remote',
    capabilities: { languages: ['*'], streaming: true },
    async chat(messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatResult> {
      let res: Response;
      try {
        res = await remoteFetch(ep, {
          method: 'POST',
          path: '/chat/completions',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
          body: () =>
            JSON.stringify({
              model: ep.model,
              messages,
              stream: true,
              stream_options: { include_usage: true },
              ...(options.maxTokens ? { max_tokens: options.maxTokens } : {}),
              ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
            }),
          signal: options.signal,
        });
      } catch (err) {
        throw llmError(err, id);
      }
      let text = '';
      let finish: string | null | undefined;
      let usage: ChatChunk['usage'];
      const take = (c: ChatChunk) => {
        if (c.error)
          throw new RemoteFailure(
            c.error.code === 'content_filter' ? 'content_filter' : 'protocol',
            c.error.message ?? 'error in stream',
            undefined,
            c.error.code,
          );
        const choice = c.choices?.[0];
        const piece = choice?.delta?.content ?? choice?.message?.content ?? '';
        if (piece) {
          text += piece;
          options.onDelta?.(piece);
        }
        if (choice?.finish_reason) finish = choice.finish_reason;
        if (c.usage) usage = c.usage;
      };
      try {
        if ((res.headers.get('content-type') ?? '').includes('text/event-stream') && res.body) {
          for await (const data of sseData(res.body)) {
            if (data === '[DONE]') break;
            take(JSON.parse(data) as ChatChunk);
          }
        } else take((await res.json()) as ChatChunk);
      } catch (err) {
        throw llmError(err instanceof RemoteFailure ? err : bodyFailure(err, ep, options.signal), id);
      }
      if (finish === 'content_filter') throw llmError(new RemoteFailure('content_filter', 'the provider filtered the answer'), id);
      const input = usage?.prompt_tokens ?? estimateTokens(messages.map((m) => m.content).join('\n'));
      const output = usage?.completion_tokens ?? estimateTokens(text);
      return { text, usage: { input, output }, truncated: finish === 'length' };
    },
  };
}

export const openAiChatFactory: EngineFactory = {
  id: 'remote/openai-chat',
  kind: 'llm',
  tier: 'remote',
  summary: 'OpenAI-compatible chat completions over HTTP (PARLEY_REMOTE_LLM_URL): Ollama, vLLM, llama.cpp server, hosted APIs.',
  async create(ctx) {
    const ep = remoteEndpoint(ctx.config, 'llm');
    return ep ? createOpenAiChat(ep) : { unavailable: NOT_CONFIGURED('PARLEY_REMOTE_LLM_URL') };
  },
};
