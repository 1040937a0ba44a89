"""Bounded downloads: streamed to a temporary file, hashed on the way, under a size cap and a deadline.

A ``url`` data set comes from a server the project does not control. Nothing it sends may
exhaust the job's memory or keep the job alive: the body goes to a temporary file in
chunks of :data:`CHUNK_BYTES`, the SHA-256 is updated chunk by chunk, the download stops as
soon as it passes its size cap (or at once, when the server announces a larger
``Content-Length``) or its overall deadline, and on any failure the temporary file is
removed, so a failed fetch leaves nothing behind.

The deadline bounds the whole download, not each read: in the main thread (where Snakemake
runs a rule's script) an interval timer interrupts a read that is still waiting when the
deadline passes; in other threads the deadline is checked after every read, and each read
waits at most the remaining time rounded up to the read timeout.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import logging
import os
import re
import signal
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

CHUNK_BYTES = 1 << 16
#: Longest wait for one read from the server, in seconds.
READ_TIMEOUT_S = 60.0
#: Default cap on a download's size (``datasets.<name>.max_download_mb``).
DEFAULT_MAX_DOWNLOAD_MB = 100.0
#: Default deadline of a whole download (``datasets.<name>.download_deadline_s``).
DEFAULT_DOWNLOAD_DEADLINE_S = 600.0
#: Progress is logged every this many bytes.
PROGRESS_BYTES = 8 << 20


_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<user>[^/?#@\s:\"']*)"
                       r"(?P<password>:[^/?#@\s\"']*)?@")


def redact(text: str) -> str:
    """``text`` with the credentials of every URL in it hidden.

    ``http://alice:s3cret@host/x`` becomes ``http://alice:***@host/x``; a user part without a
    password, often a token (``https://TOKEN@host/x``), becomes ``***``. Logs, messages and
    the provenance record show URLs only through this function.
    """
    return _USERINFO.sub(lambda match: match["scheme"] + (
        f"{match['user']}:***@" if match["password"] is not None else "***@"), text)


def _request(url: str) -> str | urllib.request.Request:
    """What to open for ``url``: an ``http(s)`` URL with a user part is sent without it, its
    user and password going in an ``Authorization: Basic`` header that a redirect does not
    carry to another address."""
    import urllib.request  # only the fetch jobs open URLs (see _open)

    parts = urllib.parse.urlsplit(url)
    if parts.username is None or parts.scheme not in ("http", "https"):
        return url
    bare = urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
    credentials = (f"{urllib.parse.unquote(parts.username)}:"
                   f"{urllib.parse.unquote(parts.password or '')}")
    request = urllib.request.Request(bare)
    request.add_unredirected_header(
        "Authorization", "Basic " + base64.b64encode(credentials.encode()).decode())
    return request


class FetchError(RuntimeError):
    """A download failed, went over its limits, or its checksum did not match."""


@dataclass(frozen=True)
class DownloadLimits:
    """How much a download may bring and how long it may take.

    Attributes
    ----------
    max_bytes : int
        The body's size cap, in bytes.
    deadline_s : float
        Seconds from the request to the last byte.
    read_timeout_s : float
        Longest wait for one read.
    """

    max_bytes: int
    deadline_s: float
    read_timeout_s: float = READ_TIMEOUT_S

    @classmethod
    def from_config(cls, max_download_mb: float = DEFAULT_MAX_DOWNLOAD_MB,
                    download_deadline_s: float = DEFAULT_DOWNLOAD_DEADLINE_S) -> DownloadLimits:
        """The limits from a data set's ``max_download_mb`` and ``download_deadline_s`` keys."""
        if not max_download_mb > 0:
            raise ValueError(f"max_download_mb must be positive, got {max_download_mb!r}.")
        if not download_deadline_s > 0:
            raise ValueError(f"download_deadline_s must be positive, got {download_deadline_s!r}.")
        return cls(max_bytes=int(max_download_mb * 1_000_000), deadline_s=float(download_deadline_s))


class _DeadlinePassed(Exception):
    """Raised by the interval timer inside a read that was still waiting at the deadline."""


@contextlib.contextmanager
def _interrupt_at(deadline_s: float) -> Iterator[None]:
    """Interrupt whatever the main thread is blocked in after ``deadline_s`` seconds.

    Outside the main thread signals cannot be used, and this does nothing: the caller's
    between-read checks bound the download instead.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def _raise(signum, frame):
        raise _DeadlinePassed

    previous = signal.signal(signal.SIGALRM, _raise)
    signal.setitimer(signal.ITIMER_REAL, deadline_s)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _megabytes(n_bytes: int) -> str:
    return f"{n_bytes / 1_000_000:g} MB"


def _check_url(url: str, where: str) -> None:
    """Refuse a ``file://`` URL without an absolute path before any request."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "file" and (parts.netloc not in ("", "localhost") or not parts.path.startswith("/")):
        raise FetchError(
            f"{where}: {redact(url)!r} is not a file URL of an absolute path: write file:///absolute/path "
            f"(three slashes), e.g. file://{Path.cwd() / (parts.netloc.rpartition('@')[2] + parts.path)}."
        )


def _open(url: str, timeout: float, where: str):
    # Imported here: urllib.request pulls in http.client, ssl and email (about 0.1 s), which
    # only the fetch jobs use, and every job imports this module through mixlib.pipeline.io.
    import urllib.error
    import urllib.request

    shown = redact(url)
    try:
        return urllib.request.urlopen(_request(url), timeout=timeout)
    except urllib.error.HTTPError as exc:
        raise FetchError(f"{where}: download of {shown} failed: HTTP {exc.code} "
                         f"{redact(str(exc.reason))}.") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = redact(str(getattr(exc, "reason", exc)))
        if urllib.parse.urlsplit(url).scheme == "file":
            raise FetchError(f"{where}: cannot read {shown}: {reason}.") from None
        raise FetchError(f"{where}: download of {shown} failed: {reason}. Are you online?") from None


def _stream(response, handle, limits: DownloadLimits, started: float, url: str,
            where: str) -> tuple[int, str]:
    """Copy the body into ``handle`` under ``limits``; its size and SHA-256."""
    announced = response.headers.get("Content-Length") if response.headers else None
    if announced is not None and announced.isdigit() and int(announced) > limits.max_bytes:
        raise FetchError(
            f"{where}: {url} announces {_megabytes(int(announced))}, over the cap of "
            f"{_megabytes(limits.max_bytes)} (max_download_mb); nothing was kept."
        )
    digest = hashlib.sha256()
    size, next_report = 0, PROGRESS_BYTES
    # read1 returns what one read of the socket brought: a trickling server cannot hold a
    # read until a whole chunk has arrived
    read = getattr(response, "read1", response.read)
    while True:
        if time.monotonic() - started > limits.deadline_s:
            raise _DeadlinePassed
        chunk = read(CHUNK_BYTES)
        if not chunk:
            return size, digest.hexdigest()
        size += len(chunk)
        if size > limits.max_bytes:
            raise FetchError(
                f"{where}: {url} sent more than the cap of {_megabytes(limits.max_bytes)} "
                "(max_download_mb); the download was stopped and nothing was kept."
            )
        digest.update(chunk)
        handle.write(chunk)
        if size >= next_report:
            log.info("%s: %s received", where, _megabytes(size))
            next_report += PROGRESS_BYTES


def download(url: str, sha256: str, destination: str | Path, limits: DownloadLimits,
             where: str = "download") -> Path:
    """Download ``url`` to ``destination`` and check its SHA-256 digest, within ``limits``.

    The body is streamed into a temporary file beside ``destination``, hashed as it arrives,
    and moved to ``destination`` only once it is whole and its digest equals ``sha256``.

    Parameters
    ----------
    url : str
        ``http://``, ``https://`` or ``file:///`` (an absolute path) URL.
    sha256 : str
        Expected hex digest.
    destination : path
        Where the verified file goes.
    limits : DownloadLimits
        Size cap and overall deadline.
    where : str
        How messages name the download (the data set's config key).

    Returns
    -------
    pathlib.Path
        ``destination``.

    Raises
    ------
    FetchError
        On a network or HTTP error, a body over ``limits.max_bytes``, a download still
        running at ``limits.deadline_s``, or a digest other than ``sha256``. No file is left
        behind, neither ``destination`` nor the temporary file.
    """
    _check_url(url, where)
    shown = redact(url)
    destination = Path(destination)
    log.info("%s: downloading %s (cap %s, deadline %g s)", where, shown,
             _megabytes(limits.max_bytes), limits.deadline_s)
    descriptor, partial = tempfile.mkstemp(prefix=f".{destination.name}.", suffix=".part",
                                           dir=destination.parent)
    started = time.monotonic()
    try:
        with os.fdopen(descriptor, "wb") as handle, _interrupt_at(limits.deadline_s):
            response = _open(url, min(limits.read_timeout_s, limits.deadline_s), where)
            with response:
                size, digest = _stream(response, handle, limits, started, shown, where)
        if digest != sha256.lower():
            raise FetchError(
                f"{where}: checksum mismatch for {shown}: expected sha256 {sha256}, got {digest}. "
                "The file changed upstream or the config's sha256 is wrong; nothing was written."
            )
        os.replace(partial, destination)
    except _DeadlinePassed:
        os.unlink(partial)
        raise FetchError(
            f"{where}: download of {shown} did not finish within its deadline of "
            f"{limits.deadline_s:g} s (download_deadline_s); nothing was kept."
        ) from None
    except BaseException:
        os.unlink(partial)
        raise
    log.info("%s: downloaded %s, sha256 verified", where, _megabytes(size))
    return destination
