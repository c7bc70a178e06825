"""Dask writes and reads a partitioned dataset on firebase:// from worker processes."""

from __future__ import annotations

import os
from typing import Any, Iterator

import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from fsspec_fixtures import BUCKET, firebase_fs  # noqa: E402,F401 (firebase_fs is a fixture)

from fbstorage.fsspec import FirebaseStorageFileSystem  # noqa: E402

PARTITIONS = 24


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """Two worker processes, started fresh (spawn): each loads its own library instance."""
    with dask.config.set({"distributed.worker.multiprocessing-method": "spawn"}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=None) as cluster, \
            distributed.Client(cluster) as connected:
        yield connected


def library_use() -> dict[str, Any]:
    """Runs in a worker: the process and the library storages its filesystems made."""
    from fbstorage import _native

    return {
        "pid": os.getpid(),
        "library": None if _native._loaded is None else str(_native.library_path()),
        "storages": sum(len(filesystem._process_objects.storages)
                        for filesystem in FirebaseStorageFileSystem._cache.values()),
    }


def test_partitioned_dataset_from_worker_processes(client: Any, emulator,
                                                   firebase_fs: FirebaseStorageFileSystem) -> None:
    options = {"emulator_host": f"{emulator.host}:{emulator.port}"}
    url = f"firebase://{BUCKET}/dask/table"
    rows = PARTITIONS * 500
    expected = pd.DataFrame({"id": np.arange(rows), "value": np.random.default_rng().random(rows)})
    frame = dd.from_pandas(expected, npartitions=PARTITIONS)

    client.run(FirebaseStorageFileSystem.clear_instance_cache)
    frame.to_parquet(url, storage_options=options, write_index=False)
    written = firebase_fs.find(f"{BUCKET}/dask/table")
    assert len([path for path in written if path.endswith(".parquet")]) == PARTITIONS

    read = dd.read_parquet(url, storage_options=options)
    assert read.npartitions == PARTITIONS
    pd.testing.assert_frame_equal(read.compute().reset_index(drop=True), expected, check_dtype=False)

    used = client.run(library_use).values()
    assert len(used) == 2
    for worker in used:  # each worker process loaded the library and made its own storages
        assert worker["pid"] != os.getpid()
        assert worker["library"] is not None and worker["storages"] >= 1, worker
