"""HTTP API: OpenAI's transcription and speech endpoints plus Parley's extensions (docs/whisper.md,
docs/tts.md). A host serves Whisper (--model-dir), Japanese speech (--tts-model-dir) or both."""

from __future__ import annotations

import base64
import io
import json
import logging
import select
import socket
import traceback
import wave
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from . import multipart
from .batched import batch_key, is_draft
from .recognizer import BadAudio, Recognizer, Request, read_audio
from .scheduler import PRIORITIES, Job, QueueFull, Scheduler, Superseded
from .speech import SAMPLE_RATE, Speaker

log = logging.getLogger("parley_engine_host")
RESPONSE_FORMATS = {"json", "text", "verbose_json"}
SPEECH_FORMATS = ("wav", "pcm", "verbose_json")
MAX_SPEECH_INPUT = 4096  # characters, as OpenAI's /audio/speech
TRUE, FALSE = {"true", "1", "yes", "on"}, {"false", "0", "no", "off"}


class ApiError(Exception):
    def __init__(self, status: int, message: str, code: str, param: str | None = None):
        super().__init__(message)
        self.status, self.message, self.code, self.param = status, message, code, param

    def body(self) -> dict[str, Any]:
        kind = "server_error" if self.status >= 500 else "invalid_request_error"
        return {"error": {"message": self.message, "type": kind, "param": self.param, "code": self.code}}


class EngineServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, recognizer: Recognizer | None, scheduler: Scheduler, max_body_bytes: int,
                 draft_recognizer: Recognizer | None = None, speaker: Speaker | None = None):
        super().__init__(address, Handler)
        self.recognizer = recognizer
        self.speaker = speaker
        # A smaller model for drafts in the languages it serves (docs/whisper.md, "Draft model").
        self.draft_recognizer = draft_recognizer
        self.scheduler = scheduler
        self.max_body_bytes = max_body_bytes


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 120  # seconds a client may stall mid-request before its connection is dropped
    server: EngineServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        log.debug("%s " + format, self.address_string(), *args)

    # --- routing -------------------------------------------------------------------------
    def do_GET(self) -> None:
        self.dispatch({"/health": self.health, "/v1/models": self.models})

    def do_POST(self) -> None:
        self.dispatch({"/v1/audio/transcriptions": self.transcriptions, "/v1/audio/language": self.language,
                       "/v1/audio/speech": self.speech})

    def dispatch(self, routes) -> None:
        try:
            self.route(routes)
        except (TimeoutError, ConnectionError):
            self.close_connection = True  # the client stalled or left: nobody to answer

    def route(self, routes) -> None:
        path = self.path.split("?", 1)[0]
        try:
            handler = routes.get(path)
            if handler is None:
                self.close_connection = True  # a body we did not read may follow
                raise ApiError(404, f"no route {self.command} {path}", "not_found")
            handler()
        except ApiError as error:
            self.send_json(error.status, error.body())
        except (TimeoutError, ConnectionError):
            raise
        except Exception:  # a bug must answer 500, not kill the connection silently
            log.error("unhandled error on %s %s\n%s", self.command, path, traceback.format_exc())
            self.close_connection = True
            self.send_json(500, ApiError(500, "internal error in the engine host", "internal_error").body())

    # --- endpoints -----------------------------------------------------------------------
    def health(self) -> None:
        depth = self.server.scheduler.depth()
        draft = self.server.draft_recognizer
        recognizer, speaker = self.server.recognizer, self.server.speaker
        self.send_json(200, {"status": "ok", "model": recognizer.name if recognizer else None,
                             "draft_model": draft.name if draft else None,
                             "tts": speaker.describe() if speaker else None, **depth})

    def models(self) -> None:
        names = [m.name for m in (self.server.recognizer, self.server.speaker) if m is not None]
        self.send_json(200, {"object": "list", "data": [{"id": n, "object": "model", "created": 0, "owned_by": "parley"} for n in names]})

    def require_recognizer(self) -> Recognizer:
        if self.server.recognizer is None:
            raise ApiError(404, "this engine host serves no Whisper model (--model-dir)", "model_not_found")
        return self.server.recognizer

    def transcriptions(self) -> None:
        self.require_recognizer()
        form = self.read_form()
        response_format = form.get("response_format") or "json"
        if response_format not in RESPONSE_FORMATS:
            raise ApiError(400, f"response_format must be one of {sorted(RESPONSE_FORMATS)}", "invalid_value", "response_format")
        granularities = form.get_all("timestamp_granularities[]") + form.get_all("timestamp_granularities")
        request = Request(
            audio=self.audio_of(form),
            language=self.language_field(form.get("language"), "language"),
            candidates=self.candidates(form),
            prompt=form.get("prompt"),
            hotwords=form.get("hotwords"),
            temperature=number(form.get("temperature"), "temperature", float, 0.0, 1.0),
            beam_size=number(form.get("beam_size"), "beam_size", int, 1, 10) or 5,
            condition_on_previous_text=flag(form.get("condition_on_previous_text"), "condition_on_previous_text", True),
            vad_filter=flag(form.get("vad_filter"), "vad_filter", False),
            word_timestamps="word" in ",".join(granularities).split(","),
            window_pad=number(form.get("window_pad"), "window_pad", float, 0.5, 30.0),
            window_fallback=one_of(form.get("window_fallback"), "window_fallback", WINDOW_FALLBACKS, "full"),
        )
        priority = self.priority(form)
        # Live drafts (and live finals) the decoder treats alike may be decoded in one batch
        # with others waiting.
        key = batch_key(request) if priority == "live" else None
        final = key is not None and not is_draft(request)
        recognizer = self.server.recognizer
        draft = self.server.draft_recognizer
        # draft_model=off: a draft of audio the draft model may not hear (Parley's energy-gated
        # utterances, loud speech the VAD missed) is decoded by the main model, batched apart,
        # crowded or not: the draft model's text of such speech is empty or wrong, so its words
        # would show only with the final (docs/whisper.md, "Finals without waiting").
        use_draft_model = flag(form.get("draft_model"), "draft_model", True)
        if key is not None and not final and draft is not None and use_draft_model and request.language in draft.languages:
            recognizer = draft
        if key is not None:
            key = (recognizer.name, *key)
        result = self.run(priority, lambda: recognizer.transcribe(request),
                          batch_key=key, payload=request, group_work=recognizer.transcribe_batch, final=final,
                          stream=self.stream_field(form) if priority == "live" else None)
        if response_format == "text":
            self.send_bytes(200, (result["text"] + "\n").encode(), "text/plain; charset=utf-8")
        elif response_format == "json":
            self.send_json(200, {"text": result["text"]})
        else:
            self.send_json(200, result)

    def language(self) -> None:
        self.require_recognizer()
        form = self.read_form()
        audio = self.audio_of(form)
        candidates = self.candidates(form)
        recognizer = self.server.recognizer

        def work():
            yield
            return recognizer.detect(audio, candidates)

        self.send_json(200, self.run(self.priority(form), work))

    def speech(self) -> None:
        """OpenAI's /audio/speech for the Japanese voices: `input`, `voice`, `speed`, and
        `response_format` wav (default), pcm (24 kHz mono s16le, as OpenAI's) or verbose_json (Parley's:
        the PCM in base64 with each word's span of the input and its estimated start and end)."""
        speaker = self.server.speaker
        if speaker is None:
            raise ApiError(404, "this engine host serves no speech model (--tts-model-dir)", "model_not_found")
        body = self.read_json()
        text = body.get("input")
        if not isinstance(text, str) or not text.strip():
            raise ApiError(400, "input (the text to speak) is required", "invalid_value", "input")
        if len(text) > MAX_SPEECH_INPUT:
            raise ApiError(400, f"input must be at most {MAX_SPEECH_INPUT} characters", "invalid_value", "input")
        voice = body.get("voice") or speaker.voices[0]
        if voice not in speaker.voices:
            raise ApiError(400, f"voice {voice!r} is not one of {speaker.voices}", "voice_not_found", "voice")
        speed = body.get("speed", 1.0)
        if isinstance(speed, bool) or not isinstance(speed, (int, float)) or not 0.25 <= speed <= 4.0:
            raise ApiError(400, "speed must be a number between 0.25 and 4.0", "invalid_value", "speed")
        response_format = one_of(body.get("response_format"), "response_format", SPEECH_FORMATS, "wav")
        priority = body.get("priority") or self.headers.get("X-Priority") or "live"
        if priority not in PRIORITIES:
            raise ApiError(400, f"priority must be one of {sorted(PRIORITIES)}", "invalid_value", "priority")
        spoken = self.run(priority, lambda: speaker.synthesize(text, voice, float(speed)),
                          failure=("synthesis failed", "synthesis_failed"))
        pcm = (np.clip(spoken.audio, -1, 1) * 32767).astype("<i2").tobytes()
        if response_format == "pcm":
            self.send_bytes(200, pcm, "audio/pcm")
        elif response_format == "wav":
            self.send_bytes(200, wav_file(pcm, SAMPLE_RATE), "audio/wav")
        else:
            self.send_json(200, {"model": speaker.name, "voice": voice, "sample_rate": SAMPLE_RATE,
                                 "duration": round(len(spoken.audio) / SAMPLE_RATE, 3),
                                 "audio": base64.b64encode(pcm).decode("ascii"), "words": spoken.words})

    # --- request parts -------------------------------------------------------------------
    def read_json(self) -> dict[str, Any]:
        raw = self.read_body()  # read first: an unread body would be parsed as the next request
        if "json" not in (self.headers.get("Content-Type") or "").lower():
            raise ApiError(415, "the body must be JSON (Content-Type: application/json)", "invalid_request")
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            raise ApiError(400, "the body is not valid JSON", "invalid_json") from None
        if not isinstance(body, dict):
            raise ApiError(400, "the body must be a JSON object", "invalid_json")
        return body

    def read_form(self) -> multipart.Form:
        body = self.read_body()
        try:
            return multipart.parse(body, self.headers.get("Content-Type"))
        except multipart.MultipartError as error:
            raise ApiError(400, str(error), "invalid_multipart") from error

    def read_body(self) -> bytes:
        limit = self.server.max_body_bytes
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self.read_chunked(limit)
        length_header = self.headers.get("Content-Length")
        if length_header is None:
            self.close_connection = True
            raise ApiError(411, "Content-Length or chunked Transfer-Encoding is required", "length_required")
        try:
            length = int(length_header)
            if length < 0:
                raise ValueError
        except ValueError:
            self.close_connection = True
            raise ApiError(400, "invalid Content-Length", "invalid_request") from None
        if length > limit:
            self.close_connection = True  # the unread body must not be parsed as a next request
            raise ApiError(413, f"request body of {length} bytes exceeds the limit of {limit}", "file_too_large")
        body = self.rfile.read(length)
        if len(body) != length:
            self.close_connection = True
            raise ApiError(400, "request body ended early", "invalid_request")
        return body

    def read_chunked(self, limit: int) -> bytes:
        chunks, total = [], 0
        try:
            while True:
                size = int(self.rfile.readline(64).split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(chunks)
                total += size
                if total > limit:
                    self.close_connection = True
                    raise ApiError(413, f"request body exceeds the limit of {limit} bytes", "file_too_large")
                chunks.append(self.rfile.read(size))
                self.rfile.readline(8)
        except ValueError:
            self.close_connection = True
            raise ApiError(400, "malformed chunked body", "invalid_request") from None

    def audio_of(self, form: multipart.Form):
        part = form.files.get("file")
        if part is None:
            raise ApiError(400, "the multipart field 'file' (the audio) is required", "missing_file", "file")
        try:
            return read_audio(part.data)
        except BadAudio as error:
            raise ApiError(400, str(error), "invalid_audio", "file") from error

    def language_field(self, value: str | None, param: str) -> str | None:
        if not value or not value.strip():
            return None
        code = value.strip().lower().split("-")[0].split("_")[0]  # "en-US" -> "en"
        if code not in self.server.recognizer.languages:
            raise ApiError(400, f"language {value!r} is not served by this model", "unsupported_language", param)
        return code

    def candidates(self, form: multipart.Form) -> list[str] | None:
        """Candidate codes the model serves; others are dropped (a session's list may name more
        languages than this model has), and none served at all is a 400."""
        raw = form.get("languages")
        if not raw or not raw.strip():
            return None
        served = self.server.recognizer.languages
        codes = [item.strip().lower().split("-")[0].split("_")[0] for item in raw.split(",") if item.strip()]
        kept = list(dict.fromkeys(c for c in codes if c in served))
        if not kept:
            raise ApiError(400, f"none of the languages {raw!r} is served by this model", "unsupported_language", "languages")
        return kept

    def priority(self, form: multipart.Form) -> str:
        value = (form.get("priority") or self.headers.get("X-Priority") or "batch").strip().lower()
        if value not in PRIORITIES:
            raise ApiError(400, f"priority must be one of {sorted(PRIORITIES)}", "invalid_value", "priority")
        return value

    def run(self, priority: str, work, failure=("recognition failed", "recognition_failed"), **group) -> Any:
        try:
            job = self.server.scheduler.submit(Job(priority, work, **group))
        except QueueFull as error:
            raise ApiError(503, f"engine host is busy: {error}", "overloaded") from error
        while not job.done.wait(0.25):
            if self.client_gone():
                job.cancelled = True  # queued work is skipped, running work stops at its next window
                raise ConnectionError("client disconnected while its request waited")
        if isinstance(job.error, Superseded):
            raise ApiError(409, "dropped: this stream's final came before the draft was decoded", "superseded", "stream")
        if isinstance(job.error, BadAudio):
            raise ApiError(400, str(job.error), "invalid_audio", "file")
        if job.error is not None:
            log.error("%s: %s", failure[0], "".join(traceback.format_exception(job.error)))
            raise ApiError(500, f"{failure[0]}: {type(job.error).__name__}", failure[1])
        return job.result

    def stream_field(self, form) -> str | None:
        """`stream`: the live stream a pass belongs to (its final drops its drafts still queued)."""
        value = form.get("stream")
        if value is None or value == "":
            return None
        if len(value) > 128:
            raise ApiError(400, "stream must be at most 128 characters", "invalid_value", "stream")
        return value

    def client_gone(self) -> bool:
        """True when the client closed its side (readable with nothing to read)."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    # --- responses -----------------------------------------------------------------------
    def send_json(self, status: int, payload: Any) -> None:
        self.send_bytes(status, json.dumps(payload, ensure_ascii=False).encode(), "application/json")

    def send_bytes(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)


def wav_file(pcm: bytes, sample_rate: int) -> bytes:
    """Mono s16le samples as a WAV file."""
    out = io.BytesIO()
    with wave.open(out, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(sample_rate)
        writer.writeframes(pcm)
    return out.getvalue()


def number(value: str | None, param: str, kind, low, high):
    if value is None or not value.strip():
        return None
    try:
        parsed = kind(value.strip())
    except ValueError:
        raise ApiError(400, f"{param} must be a number", "invalid_value", param) from None
    if not low <= parsed <= high:
        raise ApiError(400, f"{param} must be between {low} and {high}", "invalid_value", param)
    return parsed


WINDOW_FALLBACKS = ("full", "trim")


def one_of(value: str | None, param: str, allowed: tuple[str, ...], default: str) -> str:
    if value is None or value == "":
        return default
    if value not in allowed:
        raise ApiError(400, f"{param} must be one of {list(allowed)}", "invalid_value", param)
    return value


def flag(value: str | None, param: str, default: bool) -> bool:
    if value is None or not value.strip():
        return default
    lowered = value.strip().lower()
    if lowered in TRUE:
        return True
    if lowered in FALSE:
        return False
    raise ApiError(400, f"{param} must be true or false", "invalid_value", param)
