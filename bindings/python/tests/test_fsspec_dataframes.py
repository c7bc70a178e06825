"""pandas, pyarrow and Polars read and write firebase:// through fbstorage.fsspec (both flavors); a
Parquet column read fetches only the byte ranges pyarrow asks for."""

from __future__ import annotations

import io
from typing import Any

import fsspec
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from fsspec_fixtures import BUCKET, firebase_fs, served_bytes  # noqa: F401 (firebase_fs is a fixture)

from fbstorage.fsspec import FirebaseStorageFileSystem


def frame(rows: int) -> pd.DataFrame:
    generator = np.random.default_rng()
    return pd.DataFrame({
        "id": np.arange(rows, dtype=np.int64),
        "value": generator.random(rows),
        "label": [f"row-{index}" for index in range(rows)],
        "group": generator.integers(0, 4, rows),
    })


@pytest.fixture
def storage_options(firebase_fs: FirebaseStorageFileSystem, emulator) -> dict[str, str]:
    return {"emulator_host": f"{emulator.host}:{emulator.port}"}


def test_pandas_csv_round_trip(storage_options: dict[str, str], firebase_fs: FirebaseStorageFileSystem) -> None:
    written = frame(5000)
    url = f"firebase://{BUCKET}/tables/rows.csv"
    written.to_csv(url, index=False, storage_options=storage_options)
    assert firebase_fs.info(url)["contentType"] == "text/csv"
    pd.testing.assert_frame_equal(pd.read_csv(url, storage_options=storage_options), written)


def test_pandas_parquet_round_trip(storage_options: dict[str, str]) -> None:
    written = frame(20_000)
    url = f"firebase://{BUCKET}/tables/rows.parquet"
    written.to_parquet(url, storage_options=storage_options, row_group_size=4000)
    pd.testing.assert_frame_equal(pd.read_parquet(url, storage_options=storage_options), written)
    selected = pd.read_parquet(url, columns=["id", "label"], storage_options=storage_options,
                               filters=[("id", ">=", 19_990)])
    pd.testing.assert_frame_equal(selected, written.loc[19_990:, ["id", "label"]].reset_index(drop=True))


def test_pyarrow_partitioned_dataset_round_trip(firebase_fs: FirebaseStorageFileSystem) -> None:
    table = pa.Table.from_pandas(frame(8000), preserve_index=False)
    root = f"{BUCKET}/dataset"
    ds.write_dataset(table, root, filesystem=firebase_fs, format="parquet",
                     partitioning=ds.partitioning(pa.schema([("group", pa.int64())]), flavor="hive"),
                     max_rows_per_file=1000, max_rows_per_group=1000)
    written = firebase_fs.find(root)
    assert {path.split("/")[2] for path in written} == {f"group={group}" for group in range(4)}
    assert len(written) >= 8
    dataset = ds.dataset(root, filesystem=firebase_fs, format="parquet", partitioning="hive")
    read = dataset.to_table().to_pandas().sort_values("id").reset_index(drop=True)
    expected = table.to_pandas()
    pd.testing.assert_frame_equal(read[expected.columns.tolist()], expected, check_dtype=False)
    one_group = dataset.to_table(filter=ds.field("group") == 2).num_rows
    assert one_group == int((expected["group"] == 2).sum())
    assert pq.read_table(written[0], filesystem=firebase_fs).num_rows <= 1000


class CountingReader(io.RawIOBase):
    """A file that counts the bytes its reader asks for (pyarrow's requests)."""

    def __init__(self, file: Any) -> None:
        super().__init__()
        self.file, self.requested = file, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return self.file.seek(offset, whence)

    def tell(self) -> int:
        return self.file.tell()

    def readinto(self, buffer: Any) -> int:
        data = self.file.read(len(buffer))
        buffer[:len(data)] = data
        self.requested += len(data)
        return len(data)


def test_parquet_column_read_fetches_only_the_bytes_pyarrow_asks_for(emulator, firebase_fs) -> None:
    columns = 20
    table = pa.table({f"c{index}": np.random.default_rng(index).random(100_000) for index in range(columns)})
    path = f"{BUCKET}/tables/wide.parquet"
    with firebase_fs.open(path, "wb") as file:
        pq.write_table(table, file, compression="none")
    size = firebase_fs.info(path)["size"]
    emulator.clear_requests()
    with firebase_fs.open(path, "rb") as file:
        counting = CountingReader(file)
        read = pq.read_table(counting, columns=["c7"])
    assert read.column("c7").equals(table.column("c7"))
    fetched = served_bytes(emulator, size)
    assert counting.requested <= fetched <= 1.2 * counting.requested
    assert fetched < size / 10  # one column of twenty, and the footer
    # pandas through the URL, the way users call it: the same few ranges.
    emulator.clear_requests()
    frame = pd.read_parquet(f"firebase://{path}", columns=["c3"],
                            storage_options={"emulator_host": f"{emulator.host}:{emulator.port}"})
    assert np.array_equal(frame["c3"].to_numpy(), table.column("c3").to_numpy())
    assert served_bytes(emulator, size) < size / 10


def test_polars_reads_one_parquet_column_with_ranged_reads(emulator, firebase_fs) -> None:
    """Polars' own reader knows no firebase:// (FileNotFoundError) and reads a Python file whole;
    the documented recipe goes through pyarrow and this filesystem, which read ranges."""
    table = pa.table({f"c{index}": np.random.default_rng(index).random(50_000) for index in range(20)})
    path = f"{BUCKET}/tables/polars.parquet"
    with firebase_fs.open(path, "wb") as file:
        pq.write_table(table, file, compression="none", row_group_size=10_000)
    size = firebase_fs.info(path)["size"]
    options = {"emulator_host": f"{emulator.host}:{emulator.port}"}

    emulator.clear_requests()
    eager = pl.read_parquet(f"firebase://{path}", columns=["c7"], storage_options=options, use_pyarrow=True)
    assert eager["c7"].to_numpy().tolist() == table.column("c7").to_pylist()
    assert served_bytes(emulator, size) < size / 10  # one column of twenty, and the footer

    emulator.clear_requests()
    dataset = ds.dataset(path, filesystem=fsspec.filesystem("firebase", **options), format="parquet")
    lazy = pl.scan_pyarrow_dataset(dataset).filter(pl.col("c3") > 0.5).select("c3").collect()
    expected = [value for value in table.column("c3").to_pylist() if value > 0.5]
    assert lazy["c3"].to_list() == expected
    assert served_bytes(emulator, size) < size / 10
