"""The Python peers of the WAN workload, against the emulator's GCS JSON API at an https
ENDPOINT (the CA from $SSL_CERT_FILE / $REQUESTS_CA_BUNDLE). Runs in the benchmark venv.

  gcsfs-put ENDPOINT BUCKET DIR PREFIX         gcsfs: fs.put(DIR, BUCKET/PREFIX, recursive=True)
  gcsfs-get ENDPOINT BUCKET PREFIX DIR         gcsfs: fs.get(BUCKET/PREFIX, DIR, recursive=True)
  gcsfs-list ENDPOINT BUCKET PREFIX            gcsfs: fs.find(BUCKET/PREFIX)
  tm-upload ENDPOINT BUCKET DIR PREFIX N       google-cloud-storage transfer_manager.upload_many_from_filenames
  tm-download ENDPOINT BUCKET PREFIX DIR N     transfer_manager.download_many_to_path
  gcs-list ENDPOINT BUCKET PREFIX              google-cloud-storage: client.list_blobs

transfer_manager runs N threads (worker_type THREAD: the work is waiting on the network);
gcsfs its own asyncio batching (its default batch size). Prints {"seconds": S, ...}: the work
alone, after imports and client set-up.
"""

from __future__ import annotations

import os
import sys
import time

from common import report


def gcsfs_filesystem(endpoint: str):
    import gcsfs
    return gcsfs.GCSFileSystem(endpoint_url=endpoint, token="anon", project="demo-project")


def gcs_client(endpoint: str):
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import storage
    return storage.Client(project="demo-project", credentials=AnonymousCredentials(),
                          client_options={"api_endpoint": endpoint})


def names_in(directory: str) -> list[str]:
    return sorted(os.listdir(directory))


def main(command: str, endpoint: str, bucket: str, *rest: str) -> None:
    if command.startswith("gcsfs"):
        fs = gcsfs_filesystem(endpoint)
        started = time.perf_counter()
        if command == "gcsfs-put":
            fs.put(rest[0].rstrip("/") + "/", f"{bucket}/{rest[1]}/", recursive=True)
            report(time.perf_counter() - started, objects=len(names_in(rest[0])))
        elif command == "gcsfs-get":
            fs.get(f"{bucket}/{rest[0]}/", rest[1].rstrip("/") + "/", recursive=True)
            report(time.perf_counter() - started, objects=len(names_in(rest[1])))
        else:
            items = len(fs.find(f"{bucket}/{rest[0]}/"))
            report(time.perf_counter() - started, items=items)
        return
    from google.cloud.storage import transfer_manager
    client = gcs_client(endpoint)
    started = time.perf_counter()
    if command == "tm-upload":
        directory, prefix, workers = rest[0], rest[1], int(rest[2])
        names = names_in(directory)
        results = transfer_manager.upload_many_from_filenames(
            client.bucket(bucket), names, source_directory=directory, blob_name_prefix=f"{prefix}/",
            max_workers=workers, worker_type=transfer_manager.THREAD, raise_exception=True)
        report(time.perf_counter() - started, objects=len(results))
    elif command == "tm-download":
        prefix, directory, workers = rest[0], rest[1], int(rest[2])
        names = [blob.name for blob in client.list_blobs(bucket, prefix=f"{prefix}/")]
        results = transfer_manager.download_many_to_path(
            client.bucket(bucket), [name.removeprefix(f"{prefix}/") for name in names],
            destination_directory=directory, blob_name_prefix=f"{prefix}/", max_workers=workers,
            worker_type=transfer_manager.THREAD, raise_exception=True)
        report(time.perf_counter() - started, objects=len(results))
    else:
        items = sum(1 for _ in client.list_blobs(bucket, prefix=f"{rest[0]}/"))
        report(time.perf_counter() - started, items=items)


if __name__ == "__main__":
    main(*sys.argv[1:])
