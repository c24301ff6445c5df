"""Parley's Whisper engine host: one process per machine serving faster-whisper over HTTP.

Kept free of heavy imports so that `python -m parley_engine_host.install_model` runs before the
runtime packages are installed.
"""
