"""Entry point: load the model once, serve HTTP, announce readiness on stdout, die with the parent.

stdout carries exactly one JSON line (the ready event); everything else goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path

log = logging.getLogger("parley_engine_host")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="parley_engine_host", description="Parley's engine host (Whisper, Japanese speech)")
    parser.add_argument("--model-dir", type=Path, default=None, help="CTranslate2 Whisper model folder")
    parser.add_argument("--tts-model-dir", type=Path, default=None,
                        help="Kokoro Japanese speech model folder (kokoro-ja-v1_0-int8): serves /v1/audio/speech")
    parser.add_argument("--port", type=int, default=0, help="0 = any free port (reported in the ready line)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--threads", type=int, default=2,
                        help="CPU threads per decode (CTranslate2 intra_threads) or per speech model run (onnxruntime)")
    parser.add_argument("--workers", type=int, default=1, help="decodes (or syntheses) run at the same time")
    parser.add_argument("--batch-workers", type=int, default=0,
                        help="workers batch jobs may hold (default: workers - 1, at least 1)")
    parser.add_argument("--draft-model-dir", type=Path, default=None,
                        help="a smaller Whisper model for live drafts (batchable interim passes) in the languages it serves")
    parser.add_argument("--final-gather-ms", type=float,
                        default=float(os.environ.get("PARLEY_ENGINE_HOST_FINAL_GATHER_MS", "40")),
                        help="a live final with no other final waiting waits this long for some to batch with")
    parser.add_argument("--compute-type", default="int8", help="CTranslate2 compute type (int8, float32, ...)")
    parser.add_argument("--max-body-mb", type=float, default=256, help="largest request body accepted (413 above)")
    parser.add_argument("--max-queued", type=int, default=256, help="queued requests before 503")
    parser.add_argument("--ignore-stdin", action="store_true", help="do not exit at stdin EOF (no parent process)")
    parser.add_argument("--log-level", default=os.environ.get("PARLEY_ENGINE_HOST_LOG_LEVEL", "INFO"),
                        help="DEBUG also logs one line per decode: what, how many at once, waited, ran")
    args = parser.parse_args(argv)
    if args.model_dir is None and args.tts_model_dir is None:
        parser.error("give --model-dir (Whisper), --tts-model-dir (Japanese speech) or both")
    return args


def exit_now(reason: str) -> None:
    """Leave at once: in-flight decodes belong to a parent that is gone or asked us to stop."""
    log.info("exiting: %s", reason)
    logging.shutdown()
    os._exit(0)


def watch_stdin() -> None:
    while sys.stdin.buffer.read(65536):
        pass  # the parent writes nothing; any bytes are ignored
    exit_now("stdin reached EOF (parent gone)")


def fail(message: str, *args) -> None:
    log.error(message, *args)
    logging.shutdown()
    os._exit(2)  # not sys.exit: the stdin watcher thread holds stdin's lock, which aborts finalization


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(message)s")
    signal.signal(signal.SIGTERM, lambda *_: exit_now("SIGTERM"))
    signal.signal(signal.SIGINT, lambda *_: exit_now("SIGINT"))
    if not args.ignore_stdin:
        threading.Thread(target=watch_stdin, name="stdin-watch", daemon=True).start()

    # Imported here so that argument errors and the stdin watch do not wait for numpy/ctranslate2.
    from .http_api import EngineServer
    from .scheduler import Scheduler

    recognizer = draft = None
    if args.model_dir is not None:
        recognizer, draft = load_whisper(args)
    speaker = None
    if args.tts_model_dir is not None:
        from .speech import Speaker, SpeechUnavailable

        started = time.monotonic()
        try:
            speaker = Speaker(args.tts_model_dir, args.threads)
        except SpeechUnavailable as error:
            fail("%s", error)
        log.info("loaded speech model %s from %s in %.2f s (voices %s)", speaker.name, args.tts_model_dir,
                 time.monotonic() - started, ",".join(speaker.voices))
    scheduler = Scheduler(workers=args.workers, max_queued=args.max_queued, batch_workers=args.batch_workers,
                          final_gather_s=max(0.0, args.final_gather_ms) / 1000)
    server = EngineServer((args.host, args.port), recognizer, scheduler, int(args.max_body_mb * 1024 * 1024), draft, speaker)
    ready = {"event": "ready", "port": server.server_address[1], "model": recognizer.name if recognizer else None,
             "languages": recognizer.languages if recognizer else [], "draft_model": draft.name if draft else None,
             "tts": speaker.describe() if speaker else None}
    sys.stdout.write(json.dumps(ready) + "\n")
    sys.stdout.flush()
    log.info("serving on http://%s:%d", args.host, server.server_address[1])
    server.serve_forever()


def load_whisper(args: argparse.Namespace):
    """The Whisper model of --model-dir and the draft model of --draft-model-dir, if any."""
    from .recognizer import Recognizer, load_model, model_name

    if not (args.model_dir / "model.bin").is_file():
        fail("no model.bin in %s (run scripts/setup-engine-host.sh)", args.model_dir)
    started = time.monotonic()
    model = load_model(args.model_dir, args.threads, args.workers, args.compute_type)
    recognizer = Recognizer(model, model_name(args.model_dir))
    log.info("loaded %s from %s in %.2f s (%s, threads=%d, workers=%d)", recognizer.name, args.model_dir,
             time.monotonic() - started, args.compute_type, args.threads, args.workers)
    draft = None
    if args.draft_model_dir is not None:
        if (args.draft_model_dir / "model.bin").is_file():
            draft = Recognizer(load_model(args.draft_model_dir, args.threads, args.workers, args.compute_type),
                               model_name(args.draft_model_dir))
            log.info("drafts in %s by %s", ",".join(draft.languages), draft.name)
        else:
            log.warning("no model.bin in %s: drafts use %s", args.draft_model_dir, recognizer.name)
    return recognizer, draft


if __name__ == "__main__":
    main()
