"""Lab: live latency of the engine host under W workers x N threads, alone and beside a batch job.

  python engine-host/lab/load.py MODEL_DIR "1x2 2x1 1x1" [beam]   -> JSON lines on stdout
Live requests are 3-5 s LibriVox clips and the first 4 s of jfk (priority live); the batch job is
all clips plus multiple_keywords.wav, about 80 s of audio (priority batch).
"""

import io
import json
import os
import statistics
import sys
import threading
import time
import wave
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
from corpus import SHARED, english_clips  # noqa: E402
from test_engine_host import Host, MODEL_DIR  # noqa: E402,F401

import numpy as np  # noqa: E402
from faster_whisper import decode_audio  # noqa: E402


def wav(samples: np.ndarray) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(16000)
        writer.writeframes((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())
    return out.getvalue()


def main() -> None:
    import test_engine_host

    model_dir = Path(sys.argv[1])
    test_engine_host.MODEL_DIR = model_dir
    configs = [tuple(int(x) for x in c.split("x")) for c in sys.argv[2].split()]
    beam = sys.argv[3] if len(sys.argv) > 3 else "5"
    clips = {name: decode_audio(str(path)) for name, path, _ in english_clips(Path("/tmp/parley-lab"))}
    live = [wav(clips["0880"]), wav(clips["0930"]), wav(clips["0890"]), wav(clips["jfk"][: 4 * 16000])]
    batch = wav(np.concatenate([*clips.values(), decode_audio(str(SHARED / "multiple_keywords.wav"))]))

    for workers, threads in configs:
        host = Host("--workers", str(workers), "--threads", str(threads))

        def one(audio, priority, out):
            t = time.monotonic()
            status, _, _ = host.post_form("/v1/audio/transcriptions", {"priority": priority, "language": "en", "beam_size": beam}, audio)
            out.append(time.monotonic() - t if status == 200 else float("nan"))

        def concurrent(n, out):
            threads_ = [threading.Thread(target=one, args=(live[i % 4], "live", out)) for i in range(n)]
            for t in threads_:
                t.start()
            for t in threads_:
                t.join()

        one(live[0], "live", [])  # warm-up
        results = {}
        for label, with_batch in (("alone", False), ("beside_batch", True)):
            stop = threading.Event()
            batch_times = []
            if with_batch:
                def batches():
                    while not stop.is_set():
                        one(batch, "batch", batch_times)
                runner = threading.Thread(target=batches)
                runner.start()
                time.sleep(1.0)
            single, four = [], []
            cpu_before = cpu_seconds(host.process.pid)
            for i in range(6):
                one(live[i % 4], "live", single)
            live_cpu = cpu_seconds(host.process.pid) - cpu_before
            for _ in range(3):
                concurrent(4, four)
            stop.set()
            if with_batch:
                runner.join()
            live_audio_s = sum(len(live[i % 4]) - 44 for i in range(6)) / 32000
            results[label] = {
                "live_1": summary(single), "live_4": summary(four),
                **({} if with_batch else {"live_cpu_s_per_audio_s": round(live_cpu / live_audio_s, 3)}),
                **({"batch_job_s": [round(x, 2) for x in batch_times]} if with_batch else {}),
            }
        status = dict(line.split(":", 1) for line in Path(f"/proc/{host.process.pid}/status").read_text().splitlines())
        memory = {k: round(int(status[k].split()[0]) / 1024) for k in ("VmRSS", "VmHWM")}
        host.stop()
        print(json.dumps({"workers": workers, "threads": threads, "beam": beam, "host_mb": memory, **results}), flush=True)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def summary(values):
    ordered = sorted(values)
    return {"n": len(values), "best": round(ordered[0], 2), "median": round(statistics.median(ordered), 2),
            "p95": round(ordered[max(0, int(len(ordered) * 0.95) - 1)], 2), "worst": round(ordered[-1], 2)}


if __name__ == "__main__":
    main()
