/** Builds the remote endpoints from settings; undefined when the base URL is not set. */
import type { EngineConfig } from '../settings.js';
import type { RemoteEndpoint } from './http.js';

type Service = 'llm' | 'stt' | 'tts';

export function remoteEndpoint(config: EngineConfig, service: Service): RemoteEndpoint | undefined {
  const e = config.engines;
  const pick = {
    llm: { baseUrl: e.remoteLlmUrl, apiKey: e.remoteLlmKey, model: e.remoteLlmModel, timeoutMs: e.remoteLlmTimeoutMs },
    stt: { baseUrl: e.remoteSttUrl, apiKey: e.remoteSttKey, model: e.remoteSttModel, timeoutMs: e.remoteSttTimeoutMs },
    tts: { baseUrl: e.remoteTtsUrl, apiKey: e.remoteTtsKey, model: e.remoteTtsModel, timeoutMs: e.remoteTtsTimeoutMs },
  }[service];
  if (!pick.baseUrl) return undefined;
  return { ...pick, baseUrl: pick.baseUrl, retries: e.remoteRetries };
}

export const NOT_CONFIGURED = (env: string) => `${env} is not set (an OpenAI-compatible base URL, e.g. http://localhost:11434/v1)`;
