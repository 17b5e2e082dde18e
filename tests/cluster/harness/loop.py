"""The one thread that owns the cluster's state (the kubelet's and the controllers' work):
every change to pods, containers and Jobs runs here, so nothing needs finer locking.

Containers are started from this thread too: their shims die with the thread that forked
them (PR_SET_PDEATHSIG), and this thread lives until the teardown.
"""
import heapq
import itertools
import queue
import threading
import time
import traceback


class Timer:
    def __init__(self):
        self.cancelled = False

    def cancel(self):
        self.cancelled = True


class Loop:
    def __init__(self, on_error):
        self._q = queue.Queue()
        self._timers = []
        self._seq = itertools.count()
        self._on_error = on_error
        self._stop = False
        self.t0 = time.monotonic()
        self._thread = threading.Thread(target=self._run, name="kubelet", daemon=True)

    def now(self):
        """Seconds since the cluster started: the time base of every record."""
        return time.monotonic() - self.t0

    def start(self):
        self._thread.start()

    def in_loop(self):
        return threading.current_thread() is self._thread

    def post(self, fn, *args):
        self._q.put((fn, args))

    def later(self, delay, fn, *args):
        timer = Timer()
        when = time.monotonic() + max(0.0, delay)
        if self.in_loop():
            heapq.heappush(self._timers, (when, next(self._seq), timer, fn, args))
        else:
            self.post(lambda: heapq.heappush(self._timers, (when, next(self._seq), timer, fn, args)))
        return timer

    def call(self, fn, *args, timeout=60):
        """Runs fn on the loop and returns its result (or raises its exception)."""
        if self.in_loop() or not self._thread.is_alive():
            return fn(*args)  # (before the start and after the stop: nothing runs concurrently)
        done = threading.Event()
        box = {}

        def run():
            try:
                box["value"] = fn(*args)
            except BaseException as e:  # noqa: BLE001 - handed to the caller
                box["error"] = e
            finally:
                done.set()

        self.post(run)
        if not done.wait(timeout):
            raise TimeoutError(f"the kubelet loop did not run {getattr(fn, '__name__', fn)} in {timeout} s")
        if "error" in box:
            raise box["error"]
        return box.get("value")

    def stop(self):
        self._stop = True
        self.post(lambda: None)
        if self._thread.is_alive() and not self.in_loop():
            self._thread.join(10)

    def _run(self):
        while not self._stop:
            timeout = None
            if self._timers:
                timeout = max(0.0, self._timers[0][0] - time.monotonic())
            try:
                fn, args = self._q.get(timeout=timeout)
                self._guard(fn, args)
            except queue.Empty:
                pass
            while self._timers and self._timers[0][0] <= time.monotonic():
                _, _, timer, fn, args = heapq.heappop(self._timers)
                if not timer.cancelled:
                    self._guard(fn, args)

    def _guard(self, fn, args):
        try:
            fn(*args)
        except Exception:  # noqa: BLE001 - a harness bug must fail the test, not the loop
            self._on_error(traceback.format_exc())
