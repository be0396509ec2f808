"""Reading a table file whole, bounded and without blocking, and the digest that names its
bytes: what stage 1 (source.py) parses."""

from __future__ import annotations

import os
import re
import stat

from .lazy import lazy_module
from .diagnostics import Diagnostic, Span, error

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .codes import reading
else:  # imported when a finding of theirs is made: a valid table makes none
    reading = lazy_module(f"{__package__}.codes.reading")

#: A table is a few kilobytes; anything far larger is a mistake or an attack.
MAX_BYTES = 1 << 20


def digest_of(raw: bytes) -> str:
    """The content digest that names a table in logs, caches and rank agreement."""
    return _sha256(raw).hexdigest()


try:  # the interpreter's own SHA-256 (the same digest): hashlib's import loads OpenSSL, ~3 ms of
    from _sha2 import sha256 as _sha256  # a pre-commit hook, for a table of a few kilobytes
except ImportError:  # CPython before 3.12, another interpreter
    try:
        from _sha256 import sha256 as _sha256  # type: ignore[import-not-found,no-redef]
    except ImportError:
        from hashlib import sha256 as _sha256  # type: ignore[assignment]


#: A path naming a descriptor this process already holds (bash's process substitution).
_INHERITED = r"/(?:dev|proc/self)/fd/[0-9]+|/dev/stdin"


def read_bytes(path: str | os.PathLike, display: str | None = None) -> tuple[bytes | None, list[Diagnostic]]:
    """The raw bytes of a regular table file (at most MAX_BYTES); I/O problems become `io`
    diagnostics. The file is opened without blocking and then examined (no window between
    a check and the open for a pipe to be swapped in); FIFOs, devices and directories are
    refused unread, and a file that reports no size (empty, or a /proc file that may block
    on read) is taken as empty without reading it, so a path can never make a check block.
    The one pipe read is one this process already holds open by its /dev/fd/N name (as
    `swapool diff <(git show HEAD:t.yaml) t.yaml` passes it): its writer is the shell's."""
    name = display if display is not None else os.fsdecode(path)
    if not os.fspath(path):
        return None, [error(reading.IoEmptyPath(), Span("<empty path>", 1, 1))]
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except ValueError:  # a NUL byte: no file can have that name
        return None, [error(reading.IoNulByte(file=name), Span(name.replace("\0", "\\0"), 1, 1))]
    except FileNotFoundError:
        return None, [error(reading.IoMissing(file=name), Span(name, 1, 1))]
    except IsADirectoryError:
        return None, [error(reading.IoDirectory(file=name), Span(name, 1, 1))]
    except OSError as exc:
        return None, [error(reading.IoUnreadable(file=name, reason=str(exc.strerror or exc)), Span(name, 1, 1))]
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            return None, [error(reading.IoDirectory(file=name), Span(name, 1, 1))]
        if stat.S_ISFIFO(info.st_mode) and re.fullmatch(_INHERITED, os.fspath(path)):
            os.set_blocking(fd, True)  # a pipe this process holds open (`<(git show ...)`): its writer is there
        elif not stat.S_ISREG(info.st_mode):
            return None, [error(reading.IoNotRegular(file=name), Span(name, 1, 1))]
        if info.st_size == 0 and stat.S_ISREG(info.st_mode):
            return b"", []
        with os.fdopen(os.dup(fd), "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        return None, [error(reading.IoUnreadable(file=name, reason=str(exc.strerror or exc)), Span(name, 1, 1))]
    finally:
        os.close(fd)
    if len(raw) > MAX_BYTES:
        return None, [error(reading.IoTooLarge(file=name, limit=MAX_BYTES), Span(name, 1, 1))]
    return raw, []
