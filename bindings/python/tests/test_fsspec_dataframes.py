"""pandas and pyarrow read and write firebase:// through fbstorage.fsspec (both flavors)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from fsspec_fixtures import BUCKET, firebase_fs  # noqa: F401 (firebase_fs is a fixture)

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
