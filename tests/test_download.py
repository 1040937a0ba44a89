"""Bounded downloads against real misbehaving HTTP servers on 127.0.0.1.

An endless body must stop at the size cap without being held in memory, a server that
trickles or stalls must be cut off at the overall deadline, and no failure may leave a file.
"""

import hashlib
import http.server
import threading
import time
import tracemalloc

import pytest

from mixlib.datasets import FetchError, load_source
from mixlib.datasets.download import DownloadLimits, download

BODY = b"1,14.23,1.71\n" * 1000


class _Handler(http.server.BaseHTTPRequestHandler):
    """``/endless`` sends zeros forever, ``/trickle`` a byte every 0.2 s, ``/stall`` headers
    and then nothing, ``/announced`` a Content-Length of 10 GB, ``/ok`` a small file."""

    def log_message(self, *args):
        pass

    def _headers(self, length=None):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if length is not None:
            self.send_header("Content-Length", str(length))
        self.end_headers()

    def do_GET(self):
        try:
            if self.path == "/endless":
                self._headers()
                chunk = b"0" * 65536
                while True:
                    self.wfile.write(chunk)
            elif self.path == "/trickle":
                self._headers()
                while True:
                    self.wfile.write(b"0")
                    self.wfile.flush()
                    time.sleep(0.2)
            elif self.path == "/stall":
                self._headers()
                self.wfile.flush()
                time.sleep(30)
            elif self.path == "/announced":
                self._headers(10_000_000_000)
                self.wfile.write(b"0" * 1024)
            else:
                self._headers(len(BODY))
                self.wfile.write(BODY)
        except (BrokenPipeError, ConnectionResetError):
            pass


@pytest.fixture(scope="module")
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


SHA = hashlib.sha256(BODY).hexdigest()


def test_a_good_download_is_written_whole_and_verified(server, tmp_path):
    out = download(f"{server}/ok", SHA, tmp_path / "file", DownloadLimits(10**6, 10))
    assert out.read_bytes() == BODY
    assert [p.name for p in tmp_path.iterdir()] == ["file"]


def test_an_endless_body_stops_at_the_cap_without_being_held_in_memory(server, tmp_path):
    tracemalloc.start()
    started = time.monotonic()
    with pytest.raises(FetchError, match=r"datasets.big: .*/endless sent more than the cap of 20 MB "
                                         r"\(max_download_mb\).*nothing was kept"):
        download(f"{server}/endless", SHA, tmp_path / "file", DownloadLimits(20_000_000, 60),
                 where="datasets.big")
    elapsed = time.monotonic() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 2_000_000, f"the download held {peak} bytes in memory"
    assert elapsed < 30
    assert list(tmp_path.iterdir()) == []


def test_an_announced_size_over_the_cap_stops_before_reading(server, tmp_path):
    with pytest.raises(FetchError, match=r"announces 10000 MB, over the cap of 1 MB"):
        download(f"{server}/announced", SHA, tmp_path / "file", DownloadLimits(1_000_000, 60))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("path", ["/trickle", "/stall"])
def test_a_slow_server_is_cut_off_at_the_deadline_in_the_main_thread(server, tmp_path, path):
    started = time.monotonic()
    with pytest.raises(FetchError, match=r"did not finish within its deadline of 1.5 s "
                                         r"\(download_deadline_s\); nothing was kept"):
        download(f"{server}{path}", SHA, tmp_path / "file", DownloadLimits(10**9, 1.5, 60))
    assert time.monotonic() - started < 3
    assert list(tmp_path.iterdir()) == []


def test_outside_the_main_thread_the_deadline_is_checked_between_reads(server, tmp_path):
    outcome = {}

    def run():
        started = time.monotonic()
        try:
            download(f"{server}/trickle", SHA, tmp_path / "file", DownloadLimits(10**9, 1.0, 60))
        except FetchError as exc:
            outcome["error"] = str(exc)
        outcome["elapsed"] = time.monotonic() - started

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(20)
    assert "deadline of 1 s" in outcome["error"]
    assert outcome["elapsed"] < 2.5
    assert list(tmp_path.iterdir()) == []


def test_the_limits_come_from_the_data_sets_config_keys(server):
    spec = {"source": "url", "url": f"{server}/endless", "sha256": SHA, "format": "uci_wine",
            "max_download_mb": 2}
    with pytest.raises(FetchError, match=r"datasets.remote: .* cap of 2 MB"):
        load_source("remote", spec)
    with pytest.raises(ValueError, match="max_download_mb must be positive"):
        DownloadLimits.from_config(max_download_mb=0)


def test_a_file_url_without_an_absolute_path_says_how_to_write_it(tmp_path):
    with pytest.raises(FetchError, match=r"datasets.wine: 'file://wine.data' is not a file URL of "
                                         r"an absolute path: write file:///absolute/path"):
        download("file://wine.data", SHA, tmp_path / "file", DownloadLimits(10**6, 10),
                 where="datasets.wine")


def test_a_missing_local_file_is_not_blamed_on_the_network(tmp_path):
    with pytest.raises(FetchError, match=r"cannot read file:///nowhere/wine.data: .*No such file") as error:
        download("file:///nowhere/wine.data", SHA, tmp_path / "file", DownloadLimits(10**6, 10))
    assert "online" not in str(error.value)
    assert list(tmp_path.iterdir()) == []


def test_a_local_file_url_downloads(tmp_path):
    source = tmp_path / "source.data"
    source.write_bytes(BODY)
    out = download(source.as_uri(), SHA, tmp_path / "file", DownloadLimits(10**6, 10))
    assert out.read_bytes() == BODY
