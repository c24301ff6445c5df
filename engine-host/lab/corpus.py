"""The real recordings the lab measures on (16 kHz mono WAVs made with ffmpeg into a work folder)."""

import subprocess
from pathlib import Path

SHARED = Path(__file__).resolve().parents[3] / "shared" / "audio"
if not SHARED.is_dir():
    SHARED = Path("/work/shared/audio")
LIBRIVOX = Path("/usr/share/pocketsphinx/test/data/librivox")
JFK_TEXT = "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country."


def to_wav(source: Path, target: Path) -> Path:
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-i", str(source), "-ar", "16000", "-ac", "1",
                        "-c:a", "pcm_s16le", str(target)], check=True)
    return target


def english_clips(work: Path) -> list[tuple[str, Path, str]]:
    """(name, wav, reference) for jfk and the five LibriVox clips."""
    clips = [("jfk", to_wav(SHARED / "jfk.flac", work / "jfk.wav"), JFK_TEXT)]
    for line in (LIBRIVOX / "transcription").read_text().splitlines():
        text, _, ident = line.rpartition("(")
        ident = ident.strip(" )")
        reference = text.replace("<s>", "").replace("</s>", "").strip()
        clips.append((ident.rsplit("-", 1)[-1], LIBRIVOX / f"{ident}.wav", reference))
    return clips
