/**
 * What the session actions see of a live session, at dispatch time (session-actions.ts,
 * tts-actions.ts, conversation-actions.ts), and the session's speech. Every answer goes to the
 * socket the session has when it is sent.
 */
import type { ConversationContext } from '../conversation-actions.js';
import type { ActionContext } from '../session-actions.js';
import type { TtsContext } from '../tts-actions.js';
import type { LiveSession } from './session.js';

export function conversationContext(session: LiveSession): ConversationContext {
  return {
    running: session.running ? session.recording : null,
    engines: session.deps.ports.engines,
    send: (text) => session.socket.send(text),
    sendError: (err) => session.socket.sendError(err),
  };
}

export function ttsContext(session: LiveSession): TtsContext {
  return {
    running: session.running ? session.recording : null,
    speech: session.speech,
    makeSpeech: (rec, settings) => session.startSpeech(rec, settings),
    principal: session.deps.principal,
    ports: session.deps.ports,
    send: (text) => session.socket.send(text),
    sendError: (err) => session.socket.sendError(err),
  };
}

export function actionContext(session: LiveSession): ActionContext {
  return {
    recording: session.recording,
    running: session.running ? session.recording : null,
    paused: session.life.kind === 'paused',
    rawStart: session.rawStart,
    principal: session.deps.principal,
    ports: session.deps.ports,
    setGlossary: (g) => session.setGlossary(g),
    send: (text) => session.socket.send(text),
    sendError: (err) => session.socket.sendError(err),
  };
}
