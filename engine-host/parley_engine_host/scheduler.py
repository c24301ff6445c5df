"""Priority scheduling of decodes: live before batch, FIFO within a priority, at most W at once.

A job is a generator: each next() does one bounded piece of work (one ~30 s window of
faster-whisper's decode) and the generator's return value is the result. Between pieces a worker
hands a batch job back to the queue when live work is waiting, so a long import delays a live
request by at most one window instead of its whole length. The job keeps its original sequence
number, so it resumes ahead of later batch jobs.

Live jobs with the same `batch_key` (drafts, or finals, the decoder treats alike, see batched.py)
that wait together are run as one group by the first one's `group_work`: up to `max_group` at
once. Drafts queue after other live work (finals) and before batch work (DRAFT_RANK). A final
(`final=True`) runs through its `group_work` even alone, so its result does not depend on
whether others waited with it. A final that finds no mate waiting waits `final_gather_s` for
one: finals of sessions whose utterances end together arrive a few milliseconds apart (each
after its stream's draft came back), and an idle worker would otherwise take the first alone.
A lone draft waits as long while the host is crowded (a group of several ran in the last
CROWDED_S): otherwise one session's draft that arrived while the others' batch ran is decoded
alone right after it, the others' next drafts then wait for it, and the sessions stay out of
step for good, two decodes a round instead of one (seen with 4 sessions: batches of 3 and 1).

Batch jobs may hold at most `batch_workers` workers (default W - 1 when W > 1), so with two or
more workers one is always free for live work and a live request never waits for a window.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable, Generator
from typing import Any

log = logging.getLogger("parley_engine_host")

PRIORITIES = {"live": 0, "batch": 1}
# Within live work, drafts (jobs that may be batched) queue after finals: a final is what a
# caption keeps, and the words only a final shows wait for it; a draft's text is replaced anyway.
DRAFT_RANK = 0.5


def is_live(rank: float) -> bool:
    return rank < PRIORITIES["batch"]


# How long after a group of several jobs ran a lone draft still waits for mates (run_worker).
CROWDED_S = 2.0


class QueueFull(Exception):
    pass


class Cancelled(Exception):
    """The request's client went away; its work was dropped at the next step boundary."""


class Superseded(Exception):
    """A live draft still queued when a later pass of its stream (its final) came: dropped undecoded."""


class Job:
    def __init__(
        self,
        priority: str,
        work: Callable[[], Generator[None, None, Any]],
        batch_key: Any = None,
        payload: Any = None,
        group_work: Callable[[list[Any]], list[Any]] | None = None,
        final: bool = False,
        stream: str | None = None,
    ):
        self.priority = priority
        # Jobs with the same key may run as one group: group_work(payloads) -> results, in order.
        self.batch_key = batch_key if group_work is not None else None
        self.payload = payload
        self.group_work = group_work
        # A batchable final: queued with live work, decoded by group_work even when alone.
        self.final = final and self.batch_key is not None
        draft = self.batch_key is not None and not self.final
        self.rank = DRAFT_RANK if draft and priority == "live" else PRIORITIES[priority]
        self.work = work
        self.steps: Generator[None, None, Any] | None = None
        self.done = threading.Event()
        self.result: Any = None
        self.error: BaseException | None = None
        self.cancelled = False  # set by the request thread when its client disconnects
        self.queued_at = time.monotonic()
        # The live stream this pass belongs to: its drafts still queued when a pass of another
        # kind (its final) comes are dropped, since they would only be decoded after it.
        self.stream = stream


class Scheduler:
    def __init__(self, workers: int, max_queued: int, batch_workers: int | None = None, max_group: int = 8,
                 final_gather_s: float = 0.0):
        self.max_queued = max_queued
        self.max_group = max_group
        self.final_gather_s = final_gather_s
        self.crowded_until = 0.0  # monotonic time until which a lone draft gathers mates too
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
            if job.stream is not None and job.rank != DRAFT_RANK:
                self.drop_drafts_of(job.stream)
            heapq.heappush(self.heap, (job.rank, next(self.sequence), job))
            self.lock.notify_all()  # an idle worker, or one gathering mates for a final
        return job

    def drop_drafts_of(self, stream: str) -> None:
        """Called with the lock held: the stream's queued drafts are answered Superseded, undecoded.
        A final is queued before drafts, so they could only come back after it, of no use."""
        def stale(job: Job) -> bool:
            return job.stream == stream and job.rank == DRAFT_RANK

        dropped = [job for _, _, job in self.heap if stale(job)]
        if not dropped:
            return
        self.heap = [entry for entry in self.heap if not stale(entry[2])]
        heapq.heapify(self.heap)
        for job in dropped:
            job.error = Superseded()
            job.done.set()

    def depth(self) -> dict[str, Any]:
        with self.lock:
            queued = {name: 0 for name in PRIORITIES}
            for _, _, job in self.heap:
                queued[job.priority] += not job.cancelled  # dropped when a worker reaches it
            return {"queued": queued, "running": self.running}

    def crowded(self) -> bool:
        """A group of several jobs started or ended in the last CROWDED_S: several live sessions share the host."""
        return time.monotonic() < self.crowded_until

    def live_starved(self) -> bool:
        """Live work waits and every worker is busy (an idle worker would take it itself)."""
        with self.lock:
            live_next = bool(self.heap) and is_live(self.heap[0][0])
            return live_next and self.running >= len(self.threads)

    def run_worker(self) -> None:
        while True:
            with self.lock:
                while not self.can_start():
                    self.lock.wait()
                rank, seq, job = heapq.heappop(self.heap)
                mates = self.take_mates(job)
                gather = job.final or (job.batch_key is not None and self.crowded())
                if gather and not mates and not job.cancelled and self.final_gather_s > 0:
                    deadline = time.monotonic() + self.final_gather_s
                    while (left := deadline - time.monotonic()) > 0:
                        self.lock.wait(left)  # lets submit() queue the mates
                    mates = self.take_mates(job)
                if mates:
                    self.crowded_until = time.monotonic() + CROWDED_S
                self.running += 1
                self.running_batch += not is_live(rank)
            requeued = False
            try:
                if mates or (job.final and not job.cancelled):
                    self.run_group([job, *mates])
                else:
                    requeued = self.advance(job, rank, seq)
            finally:
                with self.lock:
                    if mates:  # counted from the group's end too: a group longer than CROWDED_S still crowds
                        self.crowded_until = time.monotonic() + CROWDED_S
                    self.running -= 1
                    self.running_batch -= not is_live(rank)
                    if requeued:
                        heapq.heappush(self.heap, (rank, seq, job))
                    self.lock.notify_all()  # a batch slot or a requeued job may be waiting

    def take_mates(self, job: Job) -> list[Job]:
        """Called with the lock held: the waiting jobs that can run in one group with `job`."""
        if job.batch_key is None or job.cancelled:
            return []
        mates = [j for _, _, j in sorted(self.heap) if j.batch_key == job.batch_key and not j.cancelled]
        mates = mates[: self.max_group - 1]
        if mates:
            taken = {id(j) for j in mates}
            self.heap = [entry for entry in self.heap if id(entry[2]) not in taken]
            heapq.heapify(self.heap)
        return mates

    def run_group(self, jobs: list[Job]) -> None:
        """One call of the first job's group_work for all of them; each gets its own result."""
        started = time.monotonic()
        try:
            results = jobs[0].group_work([j.payload for j in jobs])
            for job, result in zip(jobs, results, strict=True):
                job.result = result
        except BaseException as error:  # reported to every waiting request, never kills the worker
            for job in jobs:
                job.error = error
        for job in jobs:
            job.done.set()
        trace(jobs, started)

    def can_start(self) -> bool:
        """Called with the lock held: the head is live, or batch has a free slot."""
        if not self.heap:
            return False
        return is_live(self.heap[0][0]) or self.running_batch < self.batch_limit

    def advance(self, job: Job, rank: float, seq: int) -> bool:
        """Run the job until it ends, or until live work waits for a batch job; True = requeue."""
        started = time.monotonic()
        try:
            if job.steps is None:
                job.steps = job.work()
            while True:
                if job.cancelled:
                    job.steps.close()
                    raise Cancelled()
                next(job.steps)
                if not is_live(rank) and self.live_starved():
                    return True
        except StopIteration as stop:
            job.result = stop.value
        except BaseException as error:  # reported to the waiting request, never kills the worker
            job.error = error
        job.done.set()
        trace([job], started)
        return False


def trace(jobs: list[Job], started: float) -> None:
    """--log-level debug: one line per decode (what, how many, how long it waited and ran), for tuning."""
    if not log.isEnabledFor(logging.DEBUG):
        return
    now = time.monotonic()
    first = jobs[0]
    kind = "final" if first.final else "draft" if first.rank == DRAFT_RANK else first.priority
    seconds = [round(len(getattr(j.payload, "audio", ())) / 16000, 1) for j in jobs]
    waited = max(started - j.queued_at for j in jobs)
    log.debug("decoded %s x%d audio %s s: waited up to %.0f ms, ran %.0f ms", kind, len(jobs), seconds,
              waited * 1000, (now - started) * 1000)
