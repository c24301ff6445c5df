"""WhisperLive's WebSocket server for bench:peers.

whisper-live 0.10.0's wheel ships the server class but not the repository's run_server.py; this
starts it the way that script's documented options do (`--backend faster_whisper -fw <folder>`,
which implies one shared model for all clients), on a local CTranslate2 model folder.
Usage: python whisperlive_server.py --port P --model-dir DIR [--threads N] [--max-clients N]
"""
import argparse
import os

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--model-dir", required=True)
parser.add_argument("--threads", type=int, default=1, help="OMP_NUM_THREADS (run_server.py's --omp_num_threads, default 1)")
parser.add_argument("--max-clients", type=int, default=4)
args = parser.parse_args()
# As run_server.py does: CTranslate2 reads the thread count from the environment at import.
os.environ["OMP_NUM_THREADS"] = str(args.threads)

from whisper_live.server import TranscriptionServer  # noqa: E402

TranscriptionServer().run(
    "127.0.0.1",
    port=args.port,
    backend="faster_whisper",
    faster_whisper_custom_model_path=args.model_dir,
    single_model=True,
    max_clients=args.max_clients,
    max_connection_time=600,
)
