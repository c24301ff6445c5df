"""Parley's engine host: a process serving faster-whisper (transcription) or Kokoro (Japanese speech) over HTTP.

Kept free of heavy imports so that `python -m parley_engine_host.install_model` runs before the
runtime packages are installed.
"""
