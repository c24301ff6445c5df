"""Scheduling order with stand-in jobs (pure stdlib): the real decodes are tested in test_engine_host."""

import sys
import threading
import time
import unittest
from unittest import mock
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from parley_engine_host import scheduler as scheduler_module  # noqa: E402
from parley_engine_host.scheduler import Cancelled, Job, QueueFull, Scheduler, Superseded  # noqa: E402


class Recorder:
    def __init__(self):
        self.events: list[str] = []
        self.lock = threading.Lock()

    def job(self, name: str, steps: int, step_s: float = 0.02, gate: threading.Event | None = None):
        def work():
            if gate is not None:
                gate.wait(5)
            for i in range(steps):
                time.sleep(step_s)
                with self.lock:
                    self.events.append(f"{name}:{i}")
                yield
            with self.lock:
                self.events.append(f"{name}:done")
            return name
        return work

    def done_order(self) -> list[str]:
        return [e.split(":")[0] for e in self.events if e.endswith(":done")]


def recording_group_work():
    """A group_work that records each group it is given and returns the payloads as results."""
    groups: list[list[str]] = []

    def group_work(payloads):
        groups.append(list(payloads))
        return list(payloads)

    return groups, group_work


def wait_until(predicate, timeout: float = 5) -> None:
    """Poll instead of sleeping a fixed time: the machine may be loaded."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition never reached"
        time.sleep(0.005)


def wait_all(*jobs: Job) -> None:
    for job in jobs:
        assert job.done.wait(10), "job never finished"


class SchedulerTest(unittest.TestCase):
    def test_live_first_then_batch_in_arrival_order(self):
        rec, gate = Recorder(), threading.Event()
        scheduler = Scheduler(workers=1, max_queued=10)
        blocker = scheduler.submit(Job("batch", rec.job("b0", 1, gate=gate)))
        wait_until(lambda: scheduler.depth()["running"] == 1)  # b0 holds the only worker
        jobs = [scheduler.submit(Job(p, rec.job(n, 1))) for n, p in
                [("b1", "batch"), ("b2", "batch"), ("l1", "live"), ("l2", "live")]]
        self.assertEqual(scheduler.depth(), {"queued": {"live": 2, "batch": 2}, "running": 1})
        gate.set()
        wait_all(blocker, *jobs)
        # b0 is handed back at its step boundary (live work waits), then resumes before b1.
        self.assertEqual(rec.done_order(), ["l1", "l2", "b0", "b1", "b2"])
        self.assertEqual(jobs[2].result, "l1")

    def test_a_long_batch_job_yields_to_live_at_a_step_and_resumes_first(self):
        rec = Recorder()
        scheduler = Scheduler(workers=1, max_queued=10)
        long_job = scheduler.submit(Job("batch", rec.job("long", 30, step_s=0.03)))
        wait_until(lambda: "long:1" in rec.events)
        later_batch = scheduler.submit(Job("batch", rec.job("later", 1)))
        live = scheduler.submit(Job("live", rec.job("live", 2)))
        wait_all(long_job, later_batch, live)
        self.assertEqual(rec.done_order(), ["live", "long", "later"])
        live_start = rec.events.index("live:0")
        self.assertLess(live_start, rec.events.index("long:29"))  # it did not wait for the whole job

    def test_with_two_workers_batch_keeps_one_free_for_live(self):
        rec = Recorder()
        scheduler = Scheduler(workers=2, max_queued=10)
        batches = [scheduler.submit(Job("batch", rec.job(f"b{i}", 20, step_s=0.05))) for i in range(2)]
        wait_until(lambda: scheduler.depth()["running"] == 1)
        self.assertEqual(scheduler.depth(), {"queued": {"live": 0, "batch": 1}, "running": 1})
        live = scheduler.submit(Job("live", rec.job("live", 1, step_s=0.01)))
        wait_all(live)
        # The second worker took it at once: b0 was never handed back and is still mid-way.
        self.assertNotIn("b0:19", rec.events)
        wait_all(*batches)
        self.assertEqual(rec.done_order(), ["live", "b0", "b1"])

    def test_errors_reach_the_request_and_the_worker_survives(self):
        scheduler = Scheduler(workers=1, max_queued=10)

        def broken():
            yield
            raise ValueError("bad input")

        failed = scheduler.submit(Job("batch", broken))
        fine = scheduler.submit(Job("batch", Recorder().job("fine", 1)))
        wait_all(failed, fine)
        self.assertIsInstance(failed.error, ValueError)
        self.assertEqual(fine.result, "fine")

    def test_a_cancelled_job_never_runs_or_stops_at_its_next_step(self):
        rec, gate = Recorder(), threading.Event()
        scheduler = Scheduler(workers=1, max_queued=10)
        running = scheduler.submit(Job("batch", rec.job("running", 20, step_s=0.02, gate=gate)))
        wait_until(lambda: scheduler.depth()["running"] == 1)
        queued = scheduler.submit(Job("batch", rec.job("queued", 1)))
        queued.cancelled = True
        gate.set()
        wait_until(lambda: "running:1" in rec.events)
        running.cancelled = True
        wait_all(running, queued)
        self.assertIsInstance(queued.error, Cancelled)
        self.assertIsInstance(running.error, Cancelled)
        self.assertFalse(any(e.startswith("queued") for e in rec.events))
        self.assertLess(sum(e.startswith("running") for e in rec.events), 20)

    def test_queue_bound(self):
        gate = threading.Event()
        scheduler = Scheduler(workers=1, max_queued=2)
        scheduler.submit(Job("batch", Recorder().job("run", 1, gate=gate)))
        wait_until(lambda: scheduler.depth()["running"] == 1)
        scheduler.submit(Job("batch", Recorder().job("q1", 1)))
        scheduler.submit(Job("live", Recorder().job("q2", 1)))
        with self.assertRaises(QueueFull):
            scheduler.submit(Job("live", Recorder().job("q3", 1)))
        gate.set()


if __name__ == "__main__":
    unittest.main()


class GroupTest(unittest.TestCase):
    """Live drafts with the same batch_key that wait together run as one group (batched.py)."""

    def test_waiting_jobs_with_one_key_run_as_one_group_others_alone(self):
        rec, gate = Recorder(), threading.Event()
        groups: list[list[str]] = []

        def group_work(payloads):
            groups.append(list(payloads))
            return [f"{p}!" for p in payloads]

        def draft(name, key):
            return Job("live", rec.job(name, 1), batch_key=key, payload=name, group_work=group_work)

        scheduler = Scheduler(workers=1, max_queued=20, max_group=3)
        blocker = scheduler.submit(Job("live", rec.job("x", 1, gate=gate)))
        wait_until(lambda: scheduler.depth()["running"] == 1)
        jobs = [scheduler.submit(draft(n, k)) for n, k in
                [("a1", "en"), ("d1", "de"), ("a2", "en"), ("a3", "en"), ("a4", "en")]]
        lone = scheduler.submit(draft("c1", "en"))
        lone.cancelled = True  # a cancelled job never joins a group
        gate.set()
        wait_all(blocker, *jobs)
        # a1 takes a2 and a3 (max_group 3); d1 has another key and a4 is left over: each of
        # them, alone, runs its own work.
        self.assertEqual(groups, [["a1", "a2", "a3"]])
        self.assertEqual([j.result for j in jobs], ["a1!", "d1", "a2!", "a3!", "a4"])
        self.assertNotIn("c1:done", rec.events)

    def test_live_finals_go_before_live_drafts_and_drafts_before_batch(self):
        rec, gate = Recorder(), threading.Event()
        scheduler = Scheduler(workers=1, max_queued=20)
        blocker = scheduler.submit(Job("live", rec.job("x", 1, gate=gate)))
        wait_until(lambda: scheduler.depth()["running"] == 1)
        jobs = [
            scheduler.submit(Job("batch", rec.job("import", 1))),
            scheduler.submit(Job("live", rec.job("draft", 1), batch_key="en", payload=1, group_work=lambda p: p)),
            scheduler.submit(Job("live", rec.job("final", 1))),
        ]
        self.assertEqual(scheduler.depth()["queued"], {"live": 2, "batch": 1})
        gate.set()
        wait_all(blocker, *jobs)
        self.assertEqual(rec.done_order(), ["x", "final", "draft", "import"])

    def test_finals_group_among_themselves_before_drafts_and_run_their_group_work_even_alone(self):
        rec, gate = Recorder(), threading.Event()
        groups: list[list[str]] = []

        def group_work(payloads):
            groups.append(list(payloads))
            return [f"{p}!" for p in payloads]

        def job(name, key, final):
            return Job("live", rec.job(name, 1), batch_key=key, payload=name, group_work=group_work, final=final)

        scheduler = Scheduler(workers=1, max_queued=20)
        blocker = scheduler.submit(Job("live", rec.job("x", 1, gate=gate)))
        wait_until(lambda: scheduler.depth()["running"] == 1)
        jobs = [scheduler.submit(job(n, k, f)) for n, k, f in
                [("d1", "draft", False), ("f1", "final", True), ("d2", "draft", False), ("f2", "final", True)]]
        gate.set()
        wait_all(blocker, *jobs)
        # The finals were queued after the drafts but go first, as one group; then the drafts.
        self.assertEqual(groups, [["f1", "f2"], ["d1", "d2"]])
        alone = scheduler.submit(job("f3", "final", True))
        wait_all(alone)
        self.assertEqual((groups[-1], alone.result), (["f3"], "f3!"))  # not its own sequential work
        self.assertNotIn("f3:done", rec.events)

    def test_a_final_alone_waits_final_gather_s_for_finals_that_arrive_just_after_it(self):
        groups, group_work = recording_group_work()

        def final(name):
            return Job("live", Recorder().job(name, 1), batch_key="k", payload=name, group_work=group_work, final=True)

        scheduler = Scheduler(workers=1, max_queued=20, final_gather_s=0.3)
        first = scheduler.submit(final("f1"))
        wait_until(lambda: not scheduler.heap)  # the idle worker took it and waits for mates
        later = [scheduler.submit(final(n)) for n in ("f2", "f3")]
        wait_all(first, *later)
        self.assertEqual(groups, [["f1", "f2", "f3"]])
        started = time.monotonic()
        wait_all(scheduler.submit(final("f4")))  # nobody comes: it runs after the gather time
        self.assertGreaterEqual(time.monotonic() - started, 0.3)
        self.assertEqual(groups[-1], ["f4"])

    def test_a_final_drops_its_streams_queued_drafts_undecoded(self):
        groups, group_work = recording_group_work()
        recorder = Recorder()

        def draft(name, stream):
            return Job("live", recorder.job(name, 1), batch_key="d", payload=name, group_work=group_work, stream=stream)

        def final(name, stream=None):
            return Job("live", recorder.job(name, 1), batch_key="f", payload=name, group_work=group_work, final=True,
                       stream=stream)

        scheduler = Scheduler(workers=1, max_queued=20)
        gate = threading.Event()
        blocker = scheduler.submit(Job("live", recorder.job("x", 1, gate=gate)))
        wait_until(lambda: scheduler.depth()["running"] == 1)
        a_draft, b_draft = scheduler.submit(draft("a-draft", "a")), scheduler.submit(draft("b-draft", "b"))
        a_final = scheduler.submit(final("a-final", "a"))
        # Answered at once, while the worker is still busy: stream a's draft could only run after its final.
        self.assertTrue(a_draft.done.is_set())
        self.assertIsInstance(a_draft.error, Superseded)
        self.assertFalse(b_draft.done.is_set())
        self.assertEqual(scheduler.depth()["queued"]["live"], 2)
        gate.set()
        wait_all(blocker, a_final, b_draft)
        # The final (its group of one), then the other stream's draft; stream a's draft never ran.
        self.assertEqual((groups, b_draft.result), ([["a-final"]], "b-draft"))
        self.assertEqual(recorder.done_order(), ["x", "b-draft"])
        # Live work without a stream drops nothing.
        gate = threading.Event()
        blocker = scheduler.submit(Job("live", recorder.job("y", 1, gate=gate)))
        wait_until(lambda: scheduler.depth()["running"] == 1)
        c_draft = scheduler.submit(draft("c-draft", "c"))
        anonymous = scheduler.submit(final("final"))
        self.assertFalse(c_draft.done.is_set())
        gate.set()
        wait_all(blocker, anonymous, c_draft)
        self.assertEqual((groups[-1], c_draft.result, c_draft.error), (["final"], "c-draft", None))

    def test_a_lone_draft_gathers_mates_only_while_the_host_is_crowded(self):
        groups, group_work = recording_group_work()

        def draft(name):
            return Job("live", Recorder().job(name, 1), batch_key="k", payload=name, group_work=group_work)

        scheduler = Scheduler(workers=1, max_queued=20, final_gather_s=0.3)
        # One session: its draft runs at once, alone (its own work, no group), and nothing is crowded.
        started = time.monotonic()
        wait_all(scheduler.submit(draft("a1")))
        self.assertLess(time.monotonic() - started, 0.3)
        self.assertEqual((groups, scheduler.crowded()), ([], False))
        # Two drafts waiting together run as one group: from then on the host is crowded.
        gate = threading.Event()
        blocker = scheduler.submit(Job("live", Recorder().job("x", 1, gate=gate)))
        wait_until(lambda: scheduler.depth()["running"] == 1)
        pair = [scheduler.submit(draft(n)) for n in ("b1", "b2")]
        gate.set()
        wait_all(blocker, *pair)
        self.assertEqual(groups, [["b1", "b2"]])
        self.assertTrue(scheduler.crowded())
        # A draft alone now waits for the other session's, which comes a little later.
        first = scheduler.submit(draft("c1"))
        wait_until(lambda: not scheduler.heap)
        wait_all(first, scheduler.submit(draft("c2")))
        self.assertEqual(groups[-1], ["c1", "c2"])

    def test_a_group_longer_than_the_crowded_time_leaves_the_host_crowded_when_it_ends(self):
        def slow_group_work(payloads):
            time.sleep(0.4)  # longer than the (shortened) crowded time below
            return list(payloads)

        with mock.patch.object(scheduler_module, "CROWDED_S", 0.2):
            scheduler = Scheduler(workers=1, max_queued=20)
            gate = threading.Event()
            blocker = scheduler.submit(Job("live", Recorder().job("x", 1, gate=gate)))
            wait_until(lambda: scheduler.depth()["running"] == 1)
            pair = [scheduler.submit(Job("live", Recorder().job(n, 1), batch_key="k", payload=n,
                                         group_work=slow_group_work)) for n in ("a", "b")]
            gate.set()
            wait_all(blocker, *pair)
            wait_until(lambda: scheduler.depth()["running"] == 0)  # the worker has closed the group
            self.assertTrue(scheduler.crowded())  # counted from the group's end, not its start
            time.sleep(0.25)
            self.assertFalse(scheduler.crowded())

    def test_a_failing_group_fails_each_of_its_jobs_and_the_worker_lives_on(self):
        gate = threading.Event()

        def group_work(payloads):
            raise RuntimeError("decode failed")

        scheduler = Scheduler(workers=1, max_queued=20)
        blocker = scheduler.submit(Job("live", Recorder().job("x", 1, gate=gate)))
        wait_until(lambda: scheduler.depth()["running"] == 1)
        jobs = [scheduler.submit(Job("live", Recorder().job(n, 1), batch_key="k", payload=n, group_work=group_work))
                for n in ("a", "b")]
        gate.set()
        wait_all(blocker, *jobs)
        self.assertTrue(all(isinstance(j.error, RuntimeError) for j in jobs))
        after = scheduler.submit(Job("live", Recorder().job("y", 1)))
        wait_all(after)
        self.assertEqual(after.result, "y")
