"""Supervised worker processes: the arena's games on this machine, with no game lost and no hang
when a worker dies.

:class:`Workers` starts ``processes`` spawned processes that each run ``initializer(*initargs)``
once (they build the game and the agents from their names) and then ``func(task)`` for each
task it is sent, and yields the results as they finish. Unlike ``multiprocessing.Pool``, which
never learns that a worker killed by ``kill -9`` (the out-of-memory killer, a plug-in calling
``os._exit``) held a task and waits for it for ever, every worker is watched through its own
pipe and its process sentinel:

* **a worker that dies** costs only the task it was running: the task is sent again (the same
  task: the same game, seed and lineup, so the result is the one an undisturbed run gets) to a
  new worker that replaces it. A task whose worker dies :data:`MAX_LOSSES` times (a game that
  kills its process every time) ends the run with one line, :class:`WorkerLost`, naming the
  task and how the worker ended;
* **a worker that cannot start**: an exception of ``initializer`` (a plug-in whose constructor
  raises only in workers) is raised in the parent at once, one line, instead of the pool
  respawning workers that fail for ever; workers dying before they are ready
  :data:`MAX_LOSSES` times in a row end the run the same way;
* **an exception of** ``func`` is raised in the parent (the run's one-line errors, a
  PluginError say, reach the command as they would in one process); the other workers are
  stopped.

Nothing is left behind: :meth:`Workers.close` (or leaving ``with``) asks idle workers to exit
(each closes its ``cmd:`` bots, :mod:`meduris_rl.agents.plugins.external`), stops the others with
SIGTERM and, after a grace period, SIGKILL, and joins every one; the pipes are the only shared
objects (no semaphores, no queue locks a dead worker could hold).

**Ctrl-C** goes to the whole process group: the workers ignore SIGINT (it is blocked while
each starts, so not even a worker that is still importing prints a traceback) and the parent
raises KeyboardInterrupt and stops them. Spawn, not fork: a forked child of a process that has
used torch can deadlock.
"""

from __future__ import annotations

import collections
import multiprocessing
import pickle
import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import wait

from meduris_rl.agents.plugins.external import exit_words
from meduris_rl.kit.errors import InputError

MAX_LOSSES = 3  # deaths of one task's worker (or of starting workers in a row) that end a run
GRACE = 10.0  # seconds stopped workers have to exit before SIGKILL
AHEAD = 2  # tasks sent to a worker at once: the one it runs and the next (as a pool's queue)


class WorkerLost(InputError, RuntimeError):
    """Workers keep dying on the same task, or while they start (the message says how)."""


class WorkerFailed(RuntimeError):
    """An exception of a worker that could not be sent to the parent as itself (its type and
    message, on one line)."""


def sendable(err: BaseException) -> BaseException:
    """``err`` if it survives pickling (its class importable here and there), else a
    :class:`WorkerFailed` with its type and message."""
    try:
        pickle.loads(pickle.dumps(err))
        return err
    except Exception:
        try:
            text = " ".join(str(err).split())
        except Exception:
            text = ""
        return WorkerFailed(f"{type(err).__name__}: {text}"[:500])


def serve(conn, initializer: Callable | None, initargs: tuple, func: Callable) -> None:
    """A worker's life: ignore Ctrl-C (the parent handles it), set up, then run tasks until the
    pipe says ``None`` or closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # (drops a Ctrl-C pending since the start)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    try:
        if initializer is not None:
            initializer(*initargs)
    except BaseException as err:  # (SystemExit of a plug-in's constructor too)
        conn.send(("init_error", sendable(err)))
        return
    conn.send(("ready", None))
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):  # the parent is gone
            return
        if task is None:
            return
        try:
            conn.send(("done", func(task)))
        except BaseException as err:
            conn.send(("raised", sendable(err)))


class Worker:
    """One worker process, its end of the pipe and the tasks sent to it ((position, task),
    oldest first: the first is running, the next waits in the pipe)."""

    def __init__(self, ctx, initializer, initargs: tuple, func: Callable):
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=serve, args=(child, initializer, initargs, func),
                                   daemon=True, name="meduris-worker")
        # SIGINT blocked while it starts: the child inherits the mask and ignores SIGINT before
        # it unblocks it (serve). The mask is this thread's only: a Ctrl-C may still reach the
        # process through another thread (tqdm's monitor), so meanwhile the handler only notes
        # it (a KeyboardInterrupt mid-start would leave the child without its start-up data,
        # and a traceback); the caller raises it once the worker is in its list
        self.interrupted = False
        main = threading.current_thread() is threading.main_thread()
        handler = signal.signal(signal.SIGINT, self.note) if main else None
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            self.process.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
            if main:
                signal.signal(signal.SIGINT, handler)
        child.close()
        self.ready = False
        self.tasks: collections.deque = collections.deque()

    def note(self, signum, frame) -> None:
        self.interrupted = True

    def how_it_ended(self) -> str:
        self.process.join(1.0)
        code = self.process.exitcode
        return "it stopped answering" if code is None else exit_words(code)


class Workers:
    """Supervised worker processes (see the module docstring); use in ``with``."""

    def __init__(self, processes: int, initializer: Callable | None, initargs: tuple,
                 func: Callable, describe: Callable[[object], str] = repr):
        self.ctx = multiprocessing.get_context("spawn")
        self.processes = processes
        self.start_args = (initializer, initargs, func)
        self.describe = describe  # a task in a message (e.g. "game 12 (greedy, random)")
        self.workers: list[Worker] = []
        self.losses: collections.Counter = collections.Counter()  # by position of the task
        self.failed_starts = 0
        self.finished = True  # were all tasks done when closed (let idle workers exit)
        self.grace = GRACE

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def spawn(self) -> None:
        # a spawned process needs multiprocessing's resource tracker, whose first start
        # *unblocks* SIGINT when it is done (CPython's ensure_running): start it before a
        # worker's start blocks SIGINT, or the first worker would start with it unblocked
        from multiprocessing import resource_tracker
        resource_tracker.ensure_running()
        worker = Worker(self.ctx, *self.start_args)
        self.workers.append(worker)  # (first: close() stops it whatever happens next)
        if worker.interrupted:
            raise KeyboardInterrupt

    def map_unordered(self, tasks: Iterable, window: int | None = None) -> Iterator:
        """``func(task)`` of each task, as they finish (any order). ``window``: at most this many
        tasks taken from ``tasks`` and not yet finished (lazily: a caller may stop early);
        None: all of them."""
        for _, result in self.finished_tasks(tasks, window):
            yield result

    def map(self, tasks: Iterable) -> Iterator:
        """``func(task)`` of each task, in the order of ``tasks`` (a result that finishes early
        waits for those before it)."""
        early: dict[int, object] = {}
        following = 0
        for position, result in self.finished_tasks(tasks, None):
            early[position] = result
            while following in early:
                yield early.pop(following)
                following += 1

    def finished_tasks(self, tasks: Iterable, window: int | None) -> Iterator[tuple[int, object]]:
        """(position in ``tasks``, result) of each task as it finishes."""
        source = enumerate(tasks)
        pending: collections.deque = collections.deque()  # (position, task) to send
        taken = 0  # tasks taken from the source and not finished
        self.finished = False
        self.losses.clear()
        while True:
            while window is None or taken < window:
                item = next(source, None)
                if item is None:
                    break
                pending.append(item)
                taken += 1
            if not pending and not any(w.tasks for w in self.workers):
                self.finished = True
                return
            while len(self.workers) < min(self.processes, taken):
                self.spawn()
            for worker in self.workers:
                # (one task ahead in its pipe: it starts the next without waiting for us)
                while worker.ready and len(worker.tasks) < AHEAD and pending:
                    worker.tasks.append(pending.popleft())
                    try:
                        worker.conn.send(worker.tasks[-1][1])
                    except OSError:  # it died just now: its sentinel says so next
                        break
            for done in self.wait_once(pending):
                taken -= 1
                yield done

    def wait_once(self, pending: collections.deque) -> list:
        """Wait for any worker's message or death; the (position, result) pairs that came."""
        watched = {w.conn: w for w in self.workers}
        dead = {w.process.sentinel: w for w in self.workers}
        results = []
        for ready in wait(list(watched) + list(dead)):
            worker = watched.get(ready) or dead[ready]
            if worker not in self.workers:
                continue  # (its pipe and its sentinel both woke: handled once)
            if ready in watched:
                try:
                    kind, payload = worker.conn.recv()
                except (EOFError, OSError):
                    self.lost(worker, pending)
                    continue
                results += self.receive(worker, kind, payload)
            else:
                self.lost(worker, pending)
        return results

    def receive(self, worker: Worker, kind: str, payload) -> list:
        if kind == "ready":
            worker.ready, self.failed_starts = True, 0
            return []
        if kind in ("init_error", "raised"):
            raise payload
        position, _ = worker.tasks.popleft()
        return [(position, payload)]

    def lost(self, worker: Worker, pending: collections.deque) -> None:
        """A worker died: its tasks (the one it ran, the one waiting) go back to the front of
        the queue and a new worker replaces it, unless that happened too often."""
        how = worker.how_it_ended()
        self.workers.remove(worker)
        worker.conn.close()
        if not worker.tasks:
            self.failed_starts += 0 if worker.ready else 1
            if self.failed_starts >= MAX_LOSSES:
                raise WorkerLost(f"worker processes die while they start ({self.failed_starts} "
                                 f"in a row; the last: {how})")
            return
        position, task = worker.tasks[0]  # (the one it was running)
        self.losses[position] += 1
        if self.losses[position] >= MAX_LOSSES:
            raise WorkerLost(f"{self.describe(task)} was lost with its worker process "
                             f"{self.losses[position]} times (the last: {how}); the run stops")
        pending.extendleft(reversed(worker.tasks))

    def close(self) -> None:
        """Stop every worker and wait for it, never for ever: after all tasks, idle workers are
        asked to exit; others get SIGTERM (their handler closes their bots), and SIGKILL after
        :data:`GRACE` seconds."""
        for worker in self.workers:
            try:
                if self.finished and not worker.tasks:
                    worker.conn.send(None)
                elif worker.process.is_alive():
                    worker.process.terminate()
            except OSError:  # (its pipe is closed: it is gone)
                pass
        for worker in self.workers:
            worker.process.join(self.grace)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(self.grace)
            worker.conn.close()
        self.workers = []
