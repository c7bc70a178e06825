"""pyarrow reads one column of a Parquet object through an fsspec filesystem:

  ranged_read.py make FILE BYTES                           writes a Parquet file of about BYTES
                                                           (COLUMNS float64 columns, 8 row groups)
  ranged_read.py fbstorage ENDPOINT BUCKET OBJECT          fbstorage.fsspec reads column c3
  ranged_read.py gcsfs ENDPOINT BUCKET OBJECT              gcsfs reads column c3

ENDPOINT: http://HOST:PORT (an emulator on loopback) or https://HOST:PORT (the WAN link; the CA
from $SSL_CERT_FILE). pyarrow reads through a file object that counts what it asks for, so
{"seconds": S, "rows": R, "pyarrow_bytes_requested": B} tells how many bytes pyarrow needed;
what the filesystem fetched for it the emulator's log tells (benchmarks/wan/ranged.py).
"""

from __future__ import annotations

import io
import sys
import time

import numpy
import pyarrow
import pyarrow.parquet as pq

from common import report

COLUMNS = 8
ROW_GROUPS = 8
COLUMN = "c3"


class CountingReader(io.RawIOBase):
    """The fsspec file, counting the bytes its reader asks for."""

    def __init__(self, file) -> None:
        self.file = file
        self.requested = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        return self.file.seek(offset, whence)

    def tell(self) -> int:
        return self.file.tell()

    def readinto(self, buffer) -> int:
        data = self.file.read(len(buffer))
        buffer[:len(data)] = data
        self.requested += len(data)
        return len(data)

    def read(self, size: int = -1) -> bytes:
        data = self.file.read(size)
        self.requested += len(data)
        return data


def filesystem(tool: str, endpoint: str, bucket: str):
    scheme, _, address = endpoint.partition("://")
    if tool == "gcsfs":
        import gcsfs
        return gcsfs.GCSFileSystem(endpoint_url=endpoint, token="anon", project="demo-project")
    from fbstorage.fsspec import FirebaseStorageFileSystem
    if scheme == "http":
        return FirebaseStorageFileSystem(emulator_host=address)
    fs = FirebaseStorageFileSystem()
    fs.storage(bucket).use_endpoint(endpoint)  # the WAN link's https front (the CA from $SSL_CERT_FILE)
    return fs


def make(path: str, size: str) -> None:
    """Random doubles (they do not compress): about `size` bytes, a column an eighth of it."""
    rows = int(size) // (8 * COLUMNS)
    generator = numpy.random.default_rng(43)
    table = pyarrow.table({f"c{n}": generator.random(rows) for n in range(COLUMNS)})
    pq.write_table(table, path, row_group_size=rows // ROW_GROUPS, compression="none")
    report(0.0, rows=rows)


def read(tool: str, endpoint: str, bucket: str, name: str, column: str = COLUMN) -> None:
    fs = filesystem(tool, endpoint, bucket)
    started = time.perf_counter()
    with fs.open(f"{bucket}/{name}", "rb") as file:
        reader = CountingReader(file)
        table = pq.read_table(reader, columns=[column])
    report(time.perf_counter() - started, rows=table.num_rows, pyarrow_bytes_requested=reader.requested)


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(*sys.argv[2:])
    else:
        read(*sys.argv[1:])
