"""Messages quote nothing of a file that is not the user's CSV, and no password of a URL."""

from __future__ import annotations

import base64
import hashlib
import http.server
import logging
import threading
from pathlib import Path

import pytest

from mixlib.datasets import FetchError, load_source
from mixlib.datasets.download import DownloadLimits, download, redact
from mixlib.pipeline.provenance import collect_provenance

ROOT = Path(__file__).resolve().parents[1]
SHADOW = ("root:$6$Zq1sX9$secrethashsecrethash:19000:0:99999:7:::\n"
          "daemon:*:19000:0:99999:7:::\nalice:$6$Pq$anothersecret:19000:0:99999:7:::\n")


def test_a_file_that_is_not_a_csv_is_not_quoted_when_the_class_column_is_missing(tmp_path):
    (tmp_path / "shadow").write_text(SHADOW)
    spec = {"source": "csv", "path": str(tmp_path / "shadow"), "class_column": "kind"}
    with pytest.raises(ValueError) as caught:
        load_source("people", spec)
    message = str(caught.value)
    assert message.endswith("class_column names 'kind', which is not a column: the file's first "
                            "line, of 1 field, does not look like a CSV header (it is not quoted "
                            "here). Is the path that of your CSV, with a header row?"), message
    for secret in ("root", "$6$", "secrethash", "daemon", "19000"):
        assert secret not in message.replace(str(tmp_path), ""), message


@pytest.mark.skipif(not Path("/etc/passwd").is_file(), reason="no /etc/passwd on this system")
def test_a_system_file_as_path_is_not_quoted():
    spec = {"source": "csv", "path": "/etc/passwd", "class_column": "kind"}
    with pytest.raises(ValueError) as caught:
        load_source("people", spec)
    first_line = Path("/etc/passwd").read_text().splitlines()[0]
    assert first_line.split(":")[0] not in str(caught.value).replace("/etc/passwd", "")


def test_a_long_first_line_with_commas_is_not_quoted_either(tmp_path):
    key = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7" * 3
    (tmp_path / "key.csv").write_text(f"{key},{key}\n1,2\n")
    with pytest.raises(ValueError, match=r"the file's first line, of 2 fields, does not look") as caught:
        load_source("k", {"source": "csv", "path": "key.csv", "class_column": "kind"}, tmp_path)
    assert "MIIE" not in str(caught.value)


def test_the_columns_of_a_csv_are_still_named(tmp_path):
    (tmp_path / "people.csv").write_text("height,Kind\n1.5,a\n1.6,b\n")
    with pytest.raises(ValueError, match=r"class_column names 'kind', which is not a column of "
                                         r"\['height', 'Kind'\]\.$"):
        load_source("p", {"source": "csv", "path": "people.csv", "class_column": "kind"}, tmp_path)


# --- Credentials in a URL ------------------------------------------------------------------

BODY = b"1,14.2,1.7,2.4,15.6,127,2.8,3.06,.28,2.29,5.64,1.04,3.92,1065\n" * 2
TOKEN = "Basic " + base64.b64encode(b"alice:s3cret").decode()


class _AuthHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.headers.get("Authorization") != TOKEN:
            self.send_response(401)
            self.end_headers()
            return
        body = BODY if self.path == "/wine.data" else b"x"
        self.send_response(200 if self.path != "/missing" else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def host():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _AuthHandler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_redact_hides_passwords_and_bare_tokens():
    assert redact("get http://alice:s3cret@h:80/x?a=1 now") == "get http://alice:***@h:80/x?a=1 now"
    assert redact("https://ghp_token@github.com/o/r") == "https://***@github.com/o/r"
    assert redact("http://h/x and file:///tmp/a@b") == "http://h/x and file:///tmp/a@b"


def test_a_url_with_a_password_downloads_with_it_and_never_shows_it(host, tmp_path, caplog):
    url = f"http://alice:s3cret@{host}/wine.data"
    with caplog.at_level(logging.INFO, logger="mixlib.datasets.download"):
        download(url, hashlib.sha256(BODY).hexdigest(), tmp_path / "f", DownloadLimits(10**6, 10))
    assert (tmp_path / "f").read_bytes() == BODY
    assert "alice:***@" in caplog.text and "s3cret" not in caplog.text
    for path, sha in (("/wine.data", "0" * 64), ("/missing", "0" * 64)):
        with pytest.raises(FetchError) as caught:
            download(f"http://alice:s3cret@{host}{path}", sha, tmp_path / "g",
                     DownloadLimits(10**6, 10))
        assert "s3cret" not in str(caught.value) and f"alice:***@{host}{path}" in str(caught.value)


def test_a_password_is_in_no_message_of_a_url_data_set_nor_in_the_provenance(host):
    spec = {"source": "url", "url": f"http://alice:s3cret@{host}/other", "format": "uci_wine",
            "sha256": hashlib.sha256(b"x").hexdigest()}
    with pytest.raises(ValueError) as caught:  # one line of "x": not a wine line
        load_source("w", spec)
    assert "s3cret" not in str(caught.value)
    record = collect_provenance({"datasets": {"w": spec}}, [], ROOT)
    assert "s3cret" not in str(record)
    assert record["config"]["datasets"]["w"]["url"] == f"http://alice:***@{host}/other"
