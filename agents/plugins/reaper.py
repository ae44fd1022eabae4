"""The keeper of one ``cmd:`` bot: it runs the bot and takes every process the bot started with it.

:class:`~meduris_rl.agents.plugins.external.SubprocessAgent` runs ``python -I reaper.py <argv>``
(this file as a script: standard library only, no import of the project) instead of the bot
itself. The keeper makes itself a *child subreaper* (Linux ``prctl(PR_SET_CHILD_SUBREAPER)``):
every process the bot starts, even one that leaves the bot's session and process group with
``setsid`` or is left behind by a launcher script, is re-parented to the keeper when its parent
dies, never to init. When the bot (its direct child: a launcher script counts) exits, or the
keeper is told to stop (SIGTERM; or its parent dies: ``PR_SET_PDEATHSIG`` sends it SIGTERM), the
keeper kills every descendant with SIGKILL until none is left, reaps them, and exits as the bot
did (the same exit code, or the same signal), so the agent reads the bot's own end.

A process group or a session is not enough (a grandchild can leave both); a cgroup would need
privileges this machine's users may not have: hence the subreaper. The keeper holds none of the
bot's pipes: when the bot and its descendants are gone, the agent sees the end of its stdout.

A program that cannot be started (missing, not executable, a ``#!`` line naming an interpreter
that does not exist) is reported on stdout as one line ``{"type": "start_failed", "error":
"..."}`` (the agent turns it into a forfeit whose reason starts with ``start``) and exit code 127.
"""

import ctypes
import json
import os
import signal
import sys

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
START_FAILED = 127


class Stop(Exception):
    """SIGTERM: stop the bot and everything it started."""


def prctl(option: int, value: int) -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)
    except (OSError, AttributeError):  # (not Linux: the keeper still waits and kills)
        pass


def why_not_started(program: str, err: OSError) -> str:
    """Why ``program`` could not be executed, in words that name the fix."""
    if err.errno == 2 and os.path.isfile(program):  # the file is there: its #! line is not
        try:
            with open(program, "rb") as f:
                first = f.readline(200).strip()
        except OSError:
            first = b""
        if first.startswith(b"#!"):
            shebang = first.decode(errors="replace")
            return (f"cannot run {program!r}: its first line {shebang!r} names an interpreter "
                    "that is not there")
    if err.errno == 8:  # ENOEXEC
        return f"cannot run {program!r}: it is not a program (a script needs a #! line)"
    if err.errno == 13:  # EACCES
        return f"cannot run {program!r}: permission denied (chmod +x it)"
    return f"cannot run {program!r}: {err.strerror or err}"


def children() -> list[int]:
    """The processes whose parent is this one (from /proc)."""
    me, found = os.getpid(), []
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()  # (the command may contain spaces)
        if len(fields) > 1 and int(fields[1]) == me:
            found.append(int(name))
    return found


def kill_all() -> None:
    """SIGKILL every descendant, level by level (the killed ones' children come to us), and
    reap them, until none is left."""
    for _ in range(1000):
        kids = children()
        if not kids:
            break
        for pid in kids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for pid in kids:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
    while True:  # (any zombie left)
        try:
            if os.waitpid(-1, os.WNOHANG) == (0, 0):
                break
        except ChildProcessError:
            break


def main(argv: list[str]) -> None:
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    prctl(PR_SET_PDEATHSIG, signal.SIGTERM)

    def on_sigterm(signum, frame):
        raise Stop  # (a handler that returns would let waitpid wait on: PEP 475)
    signal.signal(signal.SIGTERM, on_sigterm)
    try:
        pid = os.posix_spawnp(argv[0], argv, os.environ)
    except OSError as err:
        os.write(1, (json.dumps({"type": "start_failed",
                                 "error": why_not_started(argv[0], err)}) + "\n").encode())
        sys.exit(START_FAILED)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)  # (the pipes are the bot's alone: see the module docstring)
    os.dup2(devnull, 1)
    status, stopped = None, False
    try:
        while status is None:
            try:
                waited, code = os.waitpid(-1, 0)
            except ChildProcessError:
                break
            if waited == pid:
                status = code
    except Stop:
        stopped = True
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # (one stop is enough: finish the cleaning)
    kill_all()
    if stopped or status is None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            signal.signal(number, signal.SIG_DFL)
        except (OSError, ValueError):  # (SIGKILL's cannot be set: it is the default already)
            pass
        os.kill(os.getpid(), number)
    sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


if __name__ == "__main__":
    main(sys.argv[1:])
