"""Decoding a data file's bytes: UTF-8, a byte-order mark dropped, a bad byte named by place."""

from __future__ import annotations

import codecs


def decode_text(data: bytes, where: str) -> str:
    """The text of a data file: UTF-8, without the byte-order mark some editors put first.

    Parameters
    ----------
    data : bytes
        The file's content.
    where : str
        The data set and file, as messages name them (e.g. ``"datasets.people (data/people.csv)"``).

    Raises
    ------
    ValueError
        For a byte that is not UTF-8, naming the file line and column (from 1, as an editor
        counts) and the byte, with how to convert the file.
    """
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
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
