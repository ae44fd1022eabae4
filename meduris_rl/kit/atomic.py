"""Writing result files so they are never half-written: a temporary file in the same folder,
then an atomic rename over the target (the old file stays whole until the new one is complete).
A Ctrl-C (SIGINT) that arrives while a file is written is taken when it is complete: raised
inside a library's writer it can turn into another error (torch's zip writer answers an
interrupted write with a RuntimeError), which a command's Ctrl-C handling does not know."""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def sigint_deferred():
    """A SIGINT during the block is delivered when it ends (to the handler there was before);
    outside the main thread, where no handler can be set, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous, caught = signal.getsignal(signal.SIGINT), []
    signal.signal(signal.SIGINT, lambda signum, frame: caught.append(frame))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught and callable(previous):
            previous(signal.SIGINT, caught[0])  # Python's default: KeyboardInterrupt, now
        elif caught and previous == signal.SIG_DFL:
            os.kill(os.getpid(), signal.SIGINT)


def atomic_replace(path: Path, write: Callable[[str], None]) -> None:
    """Call ``write(temporary_path)``, then rename the temporary file onto ``path`` (a Ctrl-C
    meanwhile taken afterwards: the module docstring)."""
    path = Path(path)
    with sigint_deferred():
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        os.close(fd)
        try:
            write(tmp)
            os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; these are ordinary files
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (flushed to disk before the rename)."""
    def write(tmp: str) -> None:
        with open(tmp, "w", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
    atomic_replace(path, write)


def unwritable_reason(folder: Path) -> str | None:
    """Create ``folder`` if needed and prove a file can be written there: None if it can, else
    the reason (checked before long work, so results are not lost at the end)."""
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-"):
            pass
    except OSError as err:
        return err.strerror or str(err)
    return None


def output_file_problem(path: str | Path, flag: str, force: bool,
                        inputs: tuple[Path, ...] = ()) -> str | None:
    """Why a command may not write its output file ``path`` (given as ``flag``), or None: a
    folder, one of the command's ``inputs``, an existing file without ``force``, or a folder
    where nothing can be written (checked before the work starts)."""
    out = Path(path)
    if out.is_dir():
        return f"{flag} {str(out)!r} is a folder; give a file name"
    for given in inputs:
        if given.exists() and out.exists() and out.resolve() == Path(given).resolve():
            return f"{flag} {str(out)!r} is the command's own input; choose another file"
    if out.exists() and not force:
        return f"{flag} {str(out)!r} exists; add --force to replace it, or choose another file"
    reason = unwritable_reason(out.parent)
    if reason:
        return f"cannot write {str(out)!r} ({reason}); choose another {flag}"
    return None


def earlier_results(out: Path, results) -> list[str]:
    """The names of ``results`` (files or folders) an earlier run left in ``out``."""
    return [name for name in results if (out / name).exists()]


def output_folder_problem(out: Path, flag: str, force: bool, earlier: list[str],
                          fix: str = "add --force to replace them") -> str | None:
    """Why a command may not fill the folder ``out`` (given as ``flag``), or None: a file, an
    earlier run's results (``earlier``) without ``force`` (``fix`` says what to add), or a
    folder where nothing can be written (created if missing)."""
    if out.exists() and not out.is_dir():
        return f"{flag} {str(out)!r} is a file; give a folder"
    if earlier and not force:
        return (f"{flag} {str(out)!r} holds an earlier run's results ({', '.join(earlier)}); "
                f"{fix}, or choose another folder")
    reason = unwritable_reason(out)
    if reason:
        return f"cannot write results to {str(out)!r} ({reason}); choose another {flag}"
    return None


def remove_results(folder: Path, names) -> None:
    """Delete ``folder/name`` for each name (a file or a whole folder), e.g. an earlier run's
    results that ``--force`` replaces."""
    import shutil

    for name in names:
        target = Path(folder) / name
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
