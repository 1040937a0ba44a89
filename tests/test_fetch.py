"""The `url` source against a real HTTP server on 127.0.0.1, and the `csv` source."""

import hashlib
import http.server
import threading
from pathlib import Path

import pytest

from mixlib.datasets import FetchError, load_source
from mixlib.experiments.preparation import fetch_dataset
from mixlib.pipeline.io import write_csv

# Two rows of every class: a class with one example is rejected when a data set is read.
WINE_DATA = (
    "1,14.23,1.71,2.43,15.6,127,2.8,3.06,.28,2.29,5.64,1.04,3.92,1065\n"
    "2,12.37,.94,1.36,10.6,88,1.98,.57,.28,.42,1.95,1.05,1.82,520\n"
    "1,13.20,1.78,2.14,11.2,100,2.65,2.76,.26,1.28,4.38,1.05,3.40,1050\n"
    "2,12.33,1.10,2.28,16.0,101,2.05,1.09,.63,.41,3.27,1.25,1.67,680\n"
)
CLEVELAND_DATA = (
    "63.0,1.0,1.0,145.0,233.0,1.0,2.0,150.0,0.0,2.3,3.0,?,6.0,3\n"
    "67.0,1.0,4.0,160.0,286.0,0.0,2.0,108.0,1.0,1.5,2.0,3.0,3.0,2\n"
)
# Files a url source may bring that the pre-run check cannot see: the fetch job must stop them.
BAD_FILES = {
    "inf.data": WINE_DATA.replace(",520\n", ",inf\n"),
    "lonely.data": WINE_DATA + WINE_DATA.splitlines()[0].replace("1,", "3,", 1) + "\n",
}
SPLICE_DATA = "".join(f"IE, HUMA1ATP-ACCEPTOR-{i}, " + "ACGT" * 15 + "\n" for i in (1, 2))


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """Serve a folder of small UCI-format files on 127.0.0.1 (an ephemeral port)."""
    root = tmp_path_factory.mktemp("uci")
    for name, text in [("wine.data", WINE_DATA), ("processed.cleveland.data", CLEVELAND_DATA),
                       ("splice.data", SPLICE_DATA), *BAD_FILES.items()]:
        (root / name).write_text(text)
    handler = lambda *a, **k: _QuietHandler(*a, directory=str(root), **k)  # noqa: E731
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize(
    "file, text, fmt, n_columns, label",
    [
        ("wine.data", WINE_DATA, "uci_wine", 14, "1"),
        ("processed.cleveland.data", CLEVELAND_DATA, "uci_cleveland", 14, "1"),
        ("splice.data", SPLICE_DATA, "uci_splice", 2, "IE"),
    ],
)
def test_url_source_downloads_verifies_and_parses(server, file, text, fmt, n_columns, label):
    spec = {"source": "url", "url": f"{server}/{file}", "sha256": _sha(text), "format": fmt}
    frame = load_source("remote", spec)
    assert frame.shape[1] == n_columns and frame["class"].iloc[0] == label


@pytest.mark.parametrize(
    "file, message",
    [
        ("inf.data", r"datasets.remote \(http://.*/inf.data\): column 'proline' holds inf at line 2;"),
        ("lonely.data", r"datasets.remote \(http://.*/lonely.data\): class '3' has 1 example \(line 5\)"),
    ],
)
def test_fetch_job_stops_bad_values_of_a_download_by_column_class_and_line(server, file, message):
    spec = {"source": "url", "url": f"{server}/{file}", "sha256": _sha(BAD_FILES[file]),
            "format": "uci_wine"}
    with pytest.raises(ValueError, match=message):
        fetch_dataset("remote", spec)


def test_checksum_mismatch_fails_and_leaves_no_file(server, tmp_path):
    spec = {"source": "url", "url": f"{server}/wine.data", "sha256": "0" * 64, "format": "uci_wine"}
    out = tmp_path / "wine.csv"
    with pytest.raises(FetchError, match=rf"datasets.wine: checksum mismatch .* got {_sha(WINE_DATA)}"):
        write_csv(fetch_dataset("wine", spec), out)
    assert list(tmp_path.iterdir()) == []


def test_http_404_fails_with_the_status(server):
    spec = {"source": "url", "url": f"{server}/nope.data", "sha256": "0" * 64, "format": "uci_wine"}
    with pytest.raises(FetchError, match="HTTP 404"):
        load_source("wine", spec)


def test_unreachable_host_fails_clearly():
    # Port 9 on loopback (discard) is closed here: the connection is refused at once.
    spec = {"source": "url", "url": "http://127.0.0.1:9/wine.data", "sha256": "0" * 64, "format": "uci_wine"}
    with pytest.raises(FetchError, match="datasets.wine: download of http://127.0.0.1:9/wine.data failed"):
        load_source("wine", spec)


def test_csv_source_resolves_paths_against_the_base_dir(tmp_path: Path):
    (tmp_path / "mine.csv").write_text("x,y,label\n1,2,u\n3,,v\n4,5,u\n6,7,v\n")
    spec = {"source": "csv", "path": "mine.csv", "class_column": "label"}
    frame = load_source("mine", spec, base_dir=tmp_path)
    assert frame.columns.tolist() == ["x", "y", "class"] and frame["y"].isna().sum() == 1
    assert frame.attrs["lines"] == [2, 3, 4, 5]
    with pytest.raises(FileNotFoundError, match=r"datasets.mine.path: no file"):
        load_source("mine", {**spec, "path": "absent.csv"}, base_dir=tmp_path)
