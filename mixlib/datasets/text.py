"""Decoding a data file's bytes, recognised by its first bytes.

A gzip file (``1f 8b``) is decompressed; UTF-8 (with or without a byte-order mark), UTF-16 and
UTF-32 with a byte-order mark are decoded; a zip archive or Excel workbook (``PK 03 04``), an
old Office file (``d0 cf 11 e0``) and other compressed formats are refused naming the format;
a byte that is not UTF-8 is named by line and column.
"""

from __future__ import annotations

import codecs
import gzip
import io
import zlib

#: Byte-order marks of UTF-16 and UTF-32 and their codecs; UTF-32's come first, since
#: UTF-32-LE's starts with UTF-16-LE's. (UTF-8's is dropped before decoding.)
BOMS = ((codecs.BOM_UTF32_LE, "utf-32", "UTF-32"), (codecs.BOM_UTF32_BE, "utf-32", "UTF-32"),
        (codecs.BOM_UTF16_LE, "utf-16", "UTF-16"), (codecs.BOM_UTF16_BE, "utf-16", "UTF-16"))

GZIP_MAGIC = b"\x1f\x8b"

#: Formats refused by their first bytes: the magic bytes and what the message calls them.
REFUSED = ((b"PK\x03\x04", "an Excel workbook or zip archive"),
           (b"PK\x05\x06", "an Excel workbook or zip archive"),
           (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Excel workbook (.xls) or other Office file"),
           (b"BZh", "a bzip2 archive"), (b"\xfd7zXZ\x00", "an xz archive"),
           (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"), (b"%PDF", "a PDF document"))


def _gunzip(data: bytes, where: str, max_bytes: int | None) -> bytes:
    """The decompressed content of a gzip file, at most ``max_bytes`` of it."""
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
            content = stream.read(-1 if max_bytes is None else max_bytes + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise ValueError(f"{where}: the file is gzip-compressed but cannot be decompressed "
                         f"({exc}); is it whole?") from None
    if max_bytes is not None and len(content) > max_bytes:
        raise ValueError(f"{where}: the gzip file decompresses to more than {max_bytes / 1e6:g} "
                         "MB, the cap of a download (max_download_mb); raise the cap if the "
                         "file is right.")
    if content.startswith(GZIP_MAGIC):
        raise ValueError(f"{where}: the file is gzip-compressed twice; decompress it once "
                         "(gunzip) and give that file.")
    return content


def decode_text(data: bytes, where: str, max_bytes: int | None = None) -> str:
    """The text of a data file, recognised by its first bytes.

    Parameters
    ----------
    data : bytes
        The file's content.
    where : str
        The data set and file, as messages name them (e.g. ``"datasets.people (data/people.csv)"``).
    max_bytes : int, optional
        Cap on the decompressed size of a gzip file (a download's ``max_download_mb``);
        none for a user's own file.

    Returns
    -------
    str
        The text: gzip decompressed first; UTF-8, or UTF-16/UTF-32 when a byte-order mark says
        so; the byte-order mark dropped.

    Raises
    ------
    ValueError
        For a zip archive or Excel workbook, an old Office file, a bzip2, xz or 7-Zip archive
        or a PDF (naming the format), a gzip file that cannot be decompressed, text that is not
        valid in its byte-order mark's encoding, a zero byte (UTF-16 without a byte-order
        mark, or a binary file), or a byte that is not UTF-8 (naming the file
        line and column, from 1 as an editor counts, and the byte, with how to convert the file).
    """
    if data.startswith(GZIP_MAGIC):
        data = _gunzip(data, where, max_bytes)
    for magic, name in REFUSED:
        if data.startswith(magic):
            raise ValueError(f"{where}: the file is {name}, not a CSV; save it as CSV "
                             "(UTF-8) and give that file.")
    for bom, codec, name in BOMS:
        if data.startswith(bom):
            try:
                return data.decode(codec)
            except UnicodeDecodeError as exc:
                raise ValueError(
                    f"{where}: the file starts with a {name} byte-order mark but byte "
                    f"{exc.start} is not {name} text; save the file as UTF-8.") from None
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    if b"\x00" in data:
        line = data.count(b"\n", 0, data.index(b"\x00")) + 1
        raise ValueError(
            f"{where}: line {line} holds a zero byte, which no CSV text has: the file is UTF-16 "
            "or UTF-32 text without a byte-order mark, or not text. Save it as CSV (UTF-8).")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        line = data.count(b"\n", 0, exc.start) + 1
        column = len(data[line_start:exc.start].decode("utf-8", errors="replace")) + 1
        raise ValueError(
            f"{where}: line {line}, column {column} holds the byte 0x{data[exc.start]:02x}, which "
            f"is not UTF-8 text. Save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8 old.csv "
            f"> new.csv, if it was written as Latin-1).") from None
