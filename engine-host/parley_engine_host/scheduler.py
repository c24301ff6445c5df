"""Priority scheduling of decodes: live before batch, FIFO within a priority, at most W at once.

A job is a generator: each next() does one bounded piece of work (one ~30 s window of
faster-whisper's decode) and the generator's return value is the result. Between pieces a worker
hands a batch job back to the queue when live work is waiting, so a long import delays a live
request by at most one window instead of its whole length. The job keeps its original sequence
number, so it resumes ahead of later batch jobs.

Batch jobs may hold at most `batch_workers` workers (default W - 1 when W > 1), so with two or
more workers one is always free for live work and a live request never waits for a window.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Callable, Generator
from typing import Any

PRIORITIES = {"live": 0, "batch": 1}


class QueueFull(Exception):
    pass


class Cancelled(Exception):
    """The request's client went away; its work was dropped at the next step boundary."""


class Job:
    def __init__(self, priority: str, work: Callable[[], Generator[None, None, Any]]):
        self.priority = priority
        self.rank = PRIORITIES[priority]
        self.work = work
        self.steps: Generator[None, None, Any] | None = None
        self.done = threading.Event()
        self.result: Any = None
        self.error: BaseException | None = None
        self.cancelled = False  # set by the request thread when its client disconnects


class Scheduler:
    def __init__(self, workers: int, max_queued: int, batch_workers: int | None = None):
        self.max_queued = max_queued
        self.batch_limit = batch_workers if batch_workers else max(1, workers - 1)
        self.running_batch = 0
        self.heap: list[tuple[int, int, Job]] = []
        self.sequence = itertools.count()
        self.lock = threading.Condition()
        self.running = 0
        self.threads = [
            threading.Thread(target=self.run_worker, name=f"decode-{i}", daemon=True)
            for i in range(workers)
        ]
        for thread in self.threads:
            thread.start()

    def submit(self, job: Job) -> Job:
        with self.lock:
            if len(self.heap) >= self.max_queued:
                raise QueueFull(f"{len(self.heap)} requests already queued")
            heapq.heappush(self.heap, (job.rank, next(self.sequence), job))
            self.lock.notify()
        return job

    def depth(self) -> dict[str, Any]:
        with self.lock:
            queued = {name: 0 for name in PRIORITIES}
            for _, _, job in self.heap:
                queued[job.priority] += not job.cancelled  # dropped when a worker reaches it
            return {"queued": queued, "running": self.running}

    def live_starved(self) -> bool:
        """Live work waits and every worker is busy (an idle worker would take it itself)."""
        with self.lock:
            live_next = bool(self.heap) and self.heap[0][0] == PRIORITIES["live"]
            return live_next and self.running >= len(self.threads)

    def run_worker(self) -> None:
        while True:
            with self.lock:
                while not self.can_start():
                    self.lock.wait()
                rank, seq, job = heapq.heappop(self.heap)
                self.running += 1
                self.running_batch += rank != PRIORITIES["live"]
            requeued = False
            try:
                requeued = self.advance(job, rank, seq)
            finally:
                with self.lock:
                    self.running -= 1
                    self.running_batch -= rank != PRIORITIES["live"]
                    if requeued:
                        heapq.heappush(self.heap, (rank, seq, job))
                    self.lock.notify_all()  # a batch slot or a requeued job may be waiting

    def can_start(self) -> bool:
        """Called with the lock held: the head is live, or batch has a free slot."""
        if not self.heap:
            return False
        return self.heap[0][0] == PRIORITIES["live"] or self.running_batch < self.batch_limit

    def advance(self, job: Job, rank: int, seq: int) -> bool:
        """Run the job until it ends, or until live work waits for a batch job; True = requeue."""
        try:
            if job.steps is None:
                job.steps = job.work()
            while True:
                if job.cancelled:
                    job.steps.close()
                    raise Cancelled()
                next(job.steps)
                if rank > PRIORITIES["live"] and self.live_starved():
                    return True
        except StopIteration as stop:
            job.result = stop.value
        except BaseException as error:  # reported to the waiting request, never kills the worker
            job.error = error
        job.done.set()
        return False
