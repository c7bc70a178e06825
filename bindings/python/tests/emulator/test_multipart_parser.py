"""The multipart parser on a body cut into pieces anywhere: the same metadata, data and errors as
from one piece (a small upload's body is one piece; a large one arrives in many), and a large
data part streamed to the writer as it arrives."""

import asyncio
import json

import pytest

from fbstorage.emulator.blobs import BlobWriter
from fbstorage.emulator.errors import ApiError
from fbstorage.emulator.multipart import parse_multipart

CONTENT_TYPE = "multipart/related; boundary=B0undary"
DATA = b"\r\n--B0undar\r\n--B0undarz\r\n" + bytes(range(256))  # near-delimiters in the data
VALID = (b"preamble\r\n--B0undary  \r\nContent-Type: application/json; charset=utf-8\r\nX-Other: 1\r\n\r\n"
         b'{"name": "n", "metadata": {"k": "v"}}\r\n--B0undary\r\ncontent-type:  image/png \r\n\r\n'
         + DATA + b"\r\n--B0undary--\r\nepilogue")
# The same body with bare LF line breaks, as gcsfs sends it (no preamble, no final line break).
VALID_LF = (b'--B0undary\nContent-Type: application/json; charset=UTF-8\n\n{"name": "n", "metadata": {"k": "v"}}'
            b"\n--B0undary\ncontent-type: image/png\n\n" + DATA + b"\n--B0undary--")
# LF mode: a CR before the LF of a delimiter is the data's last byte (as in Go's mime/multipart).
VALID_LF_DATA_ENDS_IN_CR = (b"--B0undary\nContent-Type: application/json\n\n{}\n--B0undary\n"
                            b"Content-Type: a/b\n\nx\r\n--B0undary--\n")
MALFORMED = [
    # CRLF after the first delimiter, then bare LF: the later delimiters are data, the body has no end.
    b"--B0undary\r\nContent-Type: application/json\r\n\r\n{}\n--B0undary\nContent-Type: a/b\n\nx\n--B0undary--",
    b"--B0undary\r\nContent-Type: application/json\r\n\r\n{}\r\n--B0undary\r\nContent-Type: a/b\r\n\r\nx\n--B0undary--",
    # Bare LF bodies with what also makes a CRLF body malformed.
    b"--B0undary\nContent-Type: application/json\n\n{}\n--B0undary--",
    b"--B0undary\nContent-Type: application/json\n\n{}\n--B0undary\nContent-Type: a/b\n\nno end",
    b"--B0undary\n\n{}\n--B0undary\nContent-Type: a/b\n\nx\n--B0undary--",
    b"--B0undaryContent-Type: a/b",
    b"--B0undary\r\nContent-Type: application/json\r\n\r\n{}\r\n--B0undary--",
    b"--B0undary\r\n\r\n{}\r\n--B0undary\r\nContent-Type: a/b\r\n\r\nx\r\n--B0undary--",
    b"--B0undary\r\nContent-Type: application/json\r\n\r\n{bad\r\n--B0undary\r\nContent-Type: a/b\r\n\r\nx\r\n--B0undary--",
    b"--B0undary\r\nContent-Type: application/json\r\n\r\n{}\r\n--B0undary\r\nContent-Type: a/b\r\n\r\nno end",
    b"--B0undary\r\nContent-Type: application/json\r\n\r\n{}\r\n--B0undary\r\nContent-Type: a/b\r\n\r\nx\r\n--B0undary\r\n",
    b"no delimiter at all",
    b"",
]


async def pieces_of(body: bytes, cuts: list[int]):
    for start, end in zip([0, *cuts], [*cuts, len(body)]):
        yield body[start:end]


def parse(tmp_path, body: bytes, cuts: list[int]):
    """(metadata, content type, data) or the error's (status, message)."""
    async def run():
        writer = BlobWriter(str(tmp_path), durable=False, keep_in_memory=1 << 20)
        try:
            resource, content_type = await parse_multipart(CONTENT_TYPE, pieces_of(body, cuts), writer)
        except ApiError as error:
            return error.status, error.message
        finally:
            await writer.discard()
        return resource, content_type, bytes(writer.data)
    return asyncio.run(run())


def test_one_piece(tmp_path):
    assert parse(tmp_path, VALID, []) == ({"name": "n", "metadata": {"k": "v"}}, "image/png", DATA)


def test_bare_lf_line_breaks(tmp_path):
    assert parse(tmp_path, VALID_LF, []) == ({"name": "n", "metadata": {"k": "v"}}, "image/png", DATA)
    assert parse(tmp_path, VALID_LF_DATA_ENDS_IN_CR, []) == ({}, "a/b", b"x\r")


@pytest.mark.parametrize("body", [VALID, VALID_LF, VALID_LF_DATA_ENDS_IN_CR, *MALFORMED])
def test_any_cut_gives_the_one_piece_result(tmp_path, body):
    whole = parse(tmp_path, body, [])
    for cut in range(len(body) + 1):
        assert parse(tmp_path, body, [cut]) == whole, cut
    assert parse(tmp_path, body, list(range(1, len(body)))) == whole  # a byte at a time


def test_malformed_bodies_are_refused(tmp_path):
    for body in MALFORMED:
        status, message = parse(tmp_path, body, [])
        assert status == 400 and message, body


def test_large_data_part_streams_to_the_writer(tmp_path):
    """The data reaches the writer piece by piece: most of it before the body's last piece."""
    piece = bytes(range(256)) * 4096  # 1 MiB
    head = (b"--B0undary\r\nContent-Type: application/json\r\n\r\n{}\r\n"
            b"--B0undary\r\nContent-Type: a/b\r\n\r\n")

    async def run():
        writer = BlobWriter(str(tmp_path), durable=False)  # on disk, as a large upload is
        async def pieces():
            yield head
            for _ in range(8):
                yield piece
            assert writer.size >= 7 * len(piece)  # written before the body ended
            yield b"\r\n--B0undary--"
        try:
            resource, _ = await parse_multipart(CONTENT_TYPE, pieces(), writer)
            digest = await writer.finish()
        finally:
            await writer.discard()
        return resource, digest.size
    assert asyncio.run(run()) == ({}, 8 * len(piece))


def test_metadata_limit_holds_across_pieces(tmp_path):
    metadata = json.dumps({"pad": "x" * (1 << 20)}).encode()
    body = (b"--B0undary\r\nContent-Type: application/json\r\n\r\n" + metadata
            + b"\r\n--B0undary\r\nContent-Type: a/b\r\n\r\nx\r\n--B0undary--")
    whole = parse(tmp_path, body, [])
    assert whole[0] == 400 and "too large" in whole[1]
    assert parse(tmp_path, body, list(range(0, len(body), 65536))) == whole
