//! The binding against the bundled emulator over HTTP: uploads (both flavors), tasks, metadata,
//! listing, downloads, lifetimes and threads.
mod common;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use common::{block_on, payload, unique, Emulator, Events, TempFile, FLAVORS, SMALL_CHUNK};
use fbstorage::{ErrorCode, MetadataChanges, Storage, TaskStatus};

#[test]
fn every_handle_type_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Storage>();
    check::<fbstorage::Reference>();
    check::<fbstorage::Task>();
    check::<fbstorage::ListResult>();
    check::<fbstorage::Snapshot>();
    check::<fbstorage::StorageError>();
        check::<fbstorage::Auth>();
}

#[test]
fn upload_data_with_metadata_then_read_it_back() {
    for flavor in FLAVORS {
        let emulator = Emulator::get(flavor);
        let storage = emulator.storage();
        let reference = storage.reference(&unique("data/with metadata.txt")).unwrap();
        let metadata = MetadataChanges::new().content_type("text/plain").cache_control("no-cache").custom("owner", "rust");
        let done = reference.put_data(b"hello, rust", Some(&metadata)).unwrap().wait().unwrap();
        assert_eq!(done.status, TaskStatus::Success);
        let uploaded = done.metadata.unwrap();
        assert_eq!((uploaded.size, uploaded.content_type.as_deref()), (Some(11), Some("text/plain")), "{flavor}");
        let read = reference.metadata().unwrap();
        assert_eq!(read.full_path.as_deref(), Some(reference.full_path().as_str()));
        assert_eq!(read.cache_control.as_deref(), Some("no-cache"));
        assert_eq!(read.custom.get("owner").map(String::as_str), Some("rust"));
        assert!(read.time_created.is_some() && read.generation.is_some() && read.md5_hash.is_some());
        assert_eq!(reference.get_data(1024).unwrap(), b"hello, rust");
        let too_small = reference.get_data(4).unwrap_err();
        assert_eq!(too_small.code, ErrorCode::DownloadSizeExceeded);
        let url = reference.download_url().unwrap();
        assert!(url.starts_with(&format!("http://{}/v0/b/rust-tests/o/", emulator.address())) && url.contains("token="), "{url}");
    }
}

#[test]
fn upload_a_file_with_progress_events_in_order() {
    for flavor in FLAVORS {
        let emulator = Emulator::get(flavor);
        let storage = emulator.storage();
        storage.set_upload_chunk_size(SMALL_CHUNK).unwrap();
        let data = payload(SMALL_CHUNK * 4 + 1000);
        let file = TempFile::with(&data);
        let name = unique("file/upload.bin");
        emulator.slow_chunks(&name, 30); // the observers below come before the first chunk ends
        let reference = storage.reference(&name).unwrap();
        let task = reference.put_file(&file.0, Some(&MetadataChanges::new().custom("source", "file"))).unwrap();
        let events = Events::default();
        events.observe_all(&task);
        let done = task.wait().unwrap();
        let statuses = events.statuses();
        assert_eq!(statuses.first(), Some(&TaskStatus::Resume), "{flavor}: {statuses:?}");
        assert_eq!(statuses.last(), Some(&TaskStatus::Success), "{flavor}: {statuses:?}");
        assert!(statuses[1..statuses.len() - 1].iter().all(|s| *s == TaskStatus::Progress), "{statuses:?}");
        let progress: Vec<u64> = events.snapshots().iter().filter(|s| s.status == TaskStatus::Progress).map(|s| s.bytes_transferred).collect();
        assert!(progress.len() >= 4 && progress.windows(2).all(|w| w[0] <= w[1]), "{progress:?}");
        assert_eq!(progress.last(), Some(&(data.len() as u64)));
        assert_eq!((done.bytes_transferred, done.total_bytes), (data.len() as u64, Some(data.len() as u64)));
        let metadata = done.metadata.unwrap();
        assert_eq!(metadata.content_type.as_deref(), Some("application/octet-stream"));
        assert_eq!(metadata.custom["source"], "file");
        assert_eq!(reference.get_data(u64::MAX).unwrap(), data);
    }
}

#[test]
fn pause_then_resume_continues_the_upload() {
    for flavor in FLAVORS {
        let (storage, name) = Emulator::get(flavor).slow_storage("paused", 100);
        let data = payload(SMALL_CHUNK * 6);
        let reference = storage.reference(&name).unwrap();
        let task = reference.put_data(&data, None).unwrap();
        let events = Events::default();
        events.observe_all(&task);
        pause_after(&task, SMALL_CHUNK);
        let paused = events.wait_for(TaskStatus::Pause);
        assert!(paused.bytes_transferred < data.len() as u64, "{flavor}");
        assert_eq!(task.snapshot().unwrap().status, TaskStatus::Pause);
        let timed_out = task.wait_timeout(std::time::Duration::from_millis(200)).unwrap_err();
        assert_eq!(timed_out.code, ErrorCode::Timeout, "a paused task does not end: {timed_out}");
        task.resume().unwrap();
        task.wait().unwrap();
        let statuses = events.statuses();
        let pause_at = statuses.iter().position(|s| *s == TaskStatus::Pause).unwrap();
        assert!(statuses[pause_at..].contains(&TaskStatus::Resume), "{statuses:?}");
        assert_eq!(reference.get_data(u64::MAX).unwrap(), data);
    }
}

#[test]
fn cancel_ends_the_task_with_cancelled_and_stores_nothing() {
    for flavor in FLAVORS {
        let (storage, name) = Emulator::get(flavor).slow_storage("cancelled", 100);
        let reference = storage.reference(&name).unwrap();
        let task = reference.put_data(&payload(SMALL_CHUNK * 8), None).unwrap();
        let events = Events::default();
        events.observe_all(&task);
        events.wait_for(TaskStatus::Progress);
        task.cancel().unwrap();
        let error = task.wait().unwrap_err();
        assert_eq!(error.code, ErrorCode::Cancelled, "{flavor}: {error}");
        assert_eq!(events.wait_for(TaskStatus::Failure).error.unwrap().code, ErrorCode::Cancelled);
        assert_eq!(reference.metadata().unwrap_err().code, ErrorCode::ObjectNotFound);
    }
}

#[test]
fn tasks_are_futures_on_any_executor() {
    let emulator = Emulator::get("production");
    let storage = emulator.storage();
    storage.set_upload_chunk_size(SMALL_CHUNK).unwrap();
    let reference = storage.reference(&unique("future")).unwrap();
    let data = payload(SMALL_CHUNK * 3);
    let done = block_on(reference.put_data(&data, None).unwrap()).unwrap();
    assert_eq!(done.metadata.unwrap().size, Some(data.len() as u64));

    // Awaited from another thread than the one that started it, and failing.
    let name = unique("future-cancelled");
    emulator.slow_chunks(&name, 100);
    let task = storage.reference(&name).unwrap().put_data(&data, None).unwrap();
    let awaiting = std::thread::spawn({
        let task = task.clone();
        move || block_on(task)
    });
    task.cancel().unwrap();
    assert_eq!(awaiting.join().unwrap().unwrap_err().code, ErrorCode::Cancelled);
    // A finished task resolves at once.
    assert_eq!(block_on(task).unwrap_err().code, ErrorCode::Cancelled);
}

/// Pauses the task from its own callback thread once `bytes` were sent: sooner than a test
/// thread woken by the event could.
fn pause_after(task: &fbstorage::Task, bytes: u64) {
    let (pauser, paused) = (task.clone(), AtomicBool::new(false));
    task.observe(TaskStatus::Progress, move |s| {
        if s.bytes_transferred >= bytes && !paused.swap(true, Ordering::SeqCst) {
            pauser.pause().unwrap();
        }
    })
    .unwrap();
}

/// The child half of `resume_an_upload_in_a_new_process`: uploads until paused, writes the
/// session, and exits without cleaning up, as a killed process would.
#[test]
fn resume_child_process() {
    let Ok(arguments) = std::env::var("FBS_RESUME_CHILD") else { return };
    let [address, name, file, session_file]: [&str; 4] = arguments.split('|').collect::<Vec<_>>().try_into().unwrap();
    let (host, port) = address.rsplit_once(':').unwrap();
    let storage = Storage::new("rust-tests").unwrap();
    storage.use_emulator(host, port.parse().unwrap()).unwrap();
    storage.set_upload_chunk_size(SMALL_CHUNK).unwrap();
    let task = storage.reference(name).unwrap().put_file(Path::new(file), None).unwrap();
    let events = Events::default();
    events.observe_all(&task);
    pause_after(&task, 2 * SMALL_CHUNK);
    events.wait_for(TaskStatus::Pause);
    std::fs::write(session_file, task.upload_session().unwrap().expect("a resumable session")).unwrap();
    std::process::exit(0);
}

#[test]
fn resume_an_upload_in_a_new_process() {
    for flavor in FLAVORS {
        let emulator = Emulator::get(flavor);
        let name = unique("resumed/across processes.bin");
        emulator.slow_chunks(&name, 100);
        let data = payload(SMALL_CHUNK * 12);
        let file = TempFile::with(&data);
        let session_file = TempFile::path("session");
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["resume_child_process", "--exact", "--test-threads=1", "--nocapture"])
            .env("FBS_RESUME_CHILD", format!("{}|{name}|{}|{}", emulator.address(), file.0.display(), session_file.0.display()))
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        let session = std::fs::read_to_string(&session_file.0).unwrap();
        // From here on a chunk sent from offset 0 fails: the upload must continue, not start over.
        emulator.add_fault(&format!(
            r#"{{"match": {{"query_contains": "{}", "header": {{"X-Goog-Upload-Offset": "0"}}}}, "times": 1000, "action": {{"status": 400}}}}"#,
            name.replace('/', "%2F").replace(' ', "%20")
        ));
        let storage = emulator.storage();
        storage.set_upload_chunk_size(SMALL_CHUNK).unwrap();
        let reference = storage.reference(&name).unwrap();
        let task = reference.put_file_resuming(&file.0, &session, Some(&MetadataChanges::new().custom("resumed", "yes"))).unwrap();
        let events = Events::default();
        events.observe_all(&task);
        task.wait().unwrap_or_else(|e| panic!("{flavor}: {e}"));
        let first_progress = events.wait_for(TaskStatus::Progress);
        assert!(first_progress.bytes_transferred >= 2 * SMALL_CHUNK, "{flavor}: {first_progress:?}");
        assert_eq!(reference.get_data(u64::MAX).unwrap(), data);

        // A session for another file is refused at the call.
        let other = TempFile::with(&payload(SMALL_CHUNK));
        assert_eq!(reference.put_file_resuming(&other.0, &session, None).unwrap_err().code, ErrorCode::InvalidArgument);
    }
}

#[test]
fn metadata_update_and_delete() {
    let storage = Emulator::get("production").storage();
    let reference = storage.reference(&unique("metadata.json")).unwrap();
    let initial = MetadataChanges::new().content_type("application/json").content_language("en").custom("a", "1").custom("b", "2");
    let created = reference.put_data(b"{}", Some(&initial)).unwrap().wait().unwrap().metadata.unwrap();
    let changes = MetadataChanges::new().delete_content_language().cache_control("max-age=60").custom("a", "one").delete_custom("b");
    let updated = reference.update_metadata(&changes).unwrap();
    assert_eq!(updated.content_language, None);
    assert_eq!(updated.cache_control.as_deref(), Some("max-age=60"));
    assert_eq!(updated.content_type.as_deref(), Some("application/json"), "fields not changed are kept");
    assert_eq!(updated.custom.clone().into_iter().collect::<Vec<_>>(), [("a".to_owned(), "one".to_owned())]);
    assert!(updated.metageneration > created.metageneration, "{updated:?}");
    let cleared = reference.update_metadata(&MetadataChanges::new().clear_custom()).unwrap();
    assert!(cleared.custom.is_empty());
    reference.delete().unwrap();
    let missing = reference.metadata().unwrap_err();
    assert_eq!((missing.code, missing.http_status), (ErrorCode::ObjectNotFound, Some(404)));
    assert_eq!(reference.delete().unwrap_err().code, ErrorCode::ObjectNotFound);
}

#[test]
fn list_pages_and_list_all() {
    for flavor in FLAVORS {
        let storage = Emulator::get(flavor).storage();
        let folder = storage.reference(&unique("listing")).unwrap();
        let names = ["a", "b", "c", "d", "e", "sub1/x", "sub2/y"];
        for name in names {
            folder.child(name).unwrap().put_data(name.as_bytes(), None).unwrap().wait().unwrap();
        }
        let pages: Vec<_> = folder.pages(2).collect::<Result<_, _>>().unwrap();
        let items: Vec<String> = pages.iter().flat_map(|p| p.item_paths()).collect();
        let prefixes: Vec<String> = pages.iter().flat_map(|p| p.prefix_paths()).collect();
        let under = |n: &str| format!("{}/{n}", folder.full_path());
        assert_eq!(items, ["a", "b", "c", "d", "e"].map(under), "{flavor}");
        assert_eq!(prefixes.iter().collect::<std::collections::BTreeSet<_>>().len(), 2, "{prefixes:?}");
        assert!(pages.len() >= 3 && pages.last().unwrap().page_token().is_none());
        let all = folder.list_all().unwrap();
        assert_eq!(all.item_paths(), ["a", "b", "c", "d", "e"].map(under));
        assert_eq!(all.prefixes().iter().map(|p| p.name()).collect::<Vec<_>>(), ["sub1", "sub2"]);
        assert_eq!(all.items()[0].get_data(10).unwrap(), b"a");
        let first = folder.list(3, None).unwrap();
        assert_eq!(first.item_paths().len(), 3, "max_results bounds the items of a page");
        let second = folder.list(3, first.page_token().as_deref()).unwrap();
        assert!(!second.item_paths().iter().any(|p| first.item_paths().contains(p)));
        assert_eq!(folder.list(1001, None).unwrap_err().code, ErrorCode::InvalidArgument);
    }
}

#[test]
fn download_to_a_file_and_fail_for_a_missing_object() {
    let storage = Emulator::get("production").storage();
    let reference = storage.reference(&unique("download.bin")).unwrap();
    let data = payload(SMALL_CHUNK * 2 + 5);
    reference.put_data(&data, None).unwrap().wait().unwrap();
    let target = TempFile::path("downloaded");
    let done = reference.write_to_file(&target.0).unwrap().wait().unwrap();
    assert_eq!(done.bytes_transferred, data.len() as u64);
    assert_eq!(std::fs::read(&target.0).unwrap(), data);

    let missing = storage.reference(&unique("missing")).unwrap();
    let untouched = TempFile::with(b"keep me");
    let error = missing.write_to_file(&untouched.0).unwrap().wait().unwrap_err();
    assert_eq!((error.code, error.http_status), (ErrorCode::ObjectNotFound, Some(404)));
    assert_eq!(std::fs::read(&untouched.0).unwrap(), b"keep me");
}

#[test]
fn bad_input_fails_at_once_with_a_clear_error() {
    let storage = Emulator::get("production").storage();
    assert_eq!(storage.reference("a\0b").unwrap_err().code, ErrorCode::InvalidArgument);
    assert_eq!(storage.reference("line\nbreak").unwrap_err().code, ErrorCode::Path);
    assert_eq!(Storage::new("").unwrap_err().code, ErrorCode::Path);
    let root = storage.reference("").unwrap();
    assert_eq!(root.put_data(b"x", None).unwrap_err().code, ErrorCode::Path);
    let bad_type = MetadataChanges::new().content_type("text/plain\r\nX-Evil: 1");
    let error = storage.reference("x").unwrap().put_data(b"x", Some(&bad_type)).unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidArgument);
    assert!(!error.message.is_empty());
    let missing_file = storage.reference("x").unwrap().put_file(Path::new("/nonexistent/file"), None).unwrap_err();
    assert!(missing_file.message.contains("/nonexistent/file"), "{missing_file}");
    assert_eq!(storage.reference_for_url("gs://rust-tests/a/b").unwrap().full_path(), "a/b");
    assert_eq!(storage.reference_for_url("gs://another-bucket/a").unwrap_err().code, ErrorCode::BucketMismatch);
    assert_eq!(root.parent().unwrap().map(|p| p.full_path()), None);
    assert_eq!(storage.reference("a/b/c").unwrap().parent().unwrap().unwrap().full_path(), "a/b");
}

#[test]
fn wait_on_the_callback_thread_fails_instead_of_hanging() {
    let (storage, name) = Emulator::get("production").slow_storage("wait-in-callback", 200);
    let task = storage.reference(&name).unwrap().put_data(&payload(SMALL_CHUNK * 3), None).unwrap();
    let outcome = Arc::new(Mutex::new(None));
    let (inner, seen) = (task.clone(), outcome.clone());
    let events = Events::default();
    let recorder = events.clone();
    task.observe(TaskStatus::Resume, move |s| {
        seen.lock().unwrap().get_or_insert_with(|| inner.wait().map(|_| ()));
        recorder.push(s);
    })
    .unwrap();
    events.wait_for(TaskStatus::Resume);
    assert_eq!(outcome.lock().unwrap().clone().unwrap().unwrap_err().code, ErrorCode::InvalidArgument);
    task.wait().unwrap();
}

#[test]
fn observer_closures_are_dropped_when_removed_and_when_they_can_no_longer_run() {
    let (storage, name) = Emulator::get("production").slow_storage("closures", 100);
    let token = Arc::new(());
    let task = storage.reference(&name).unwrap().put_data(&payload(SMALL_CHUNK * 3), None).unwrap();
    let held = token.clone();
    let removed = task.observe(TaskStatus::Pause, move |_| { let _ = &held; }).unwrap();
    assert_eq!(Arc::strong_count(&token), 2);
    task.remove_observer(removed).unwrap();
    assert_eq!(Arc::strong_count(&token), 1, "removing drops the closure at once");

    // An observer that removes itself from its own call (once it knows its handle).
    let held = token.clone();
    let own_handle = Arc::new(Mutex::new(None));
    let (removed, called_after_removal) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
    let (me, inner_task, removed_in, late_call) = (own_handle.clone(), task.clone(), removed.clone(), called_after_removal.clone());
    let handle = task
        .observe(TaskStatus::Progress, move |_| {
            let _ = &held;
            if removed_in.load(Ordering::SeqCst) {
                late_call.store(true, Ordering::SeqCst);
            }
            if let Some(h) = me.lock().unwrap().take() {
                inner_task.remove_observer(h).unwrap();
                removed_in.store(true, Ordering::SeqCst);
            }
        })
        .unwrap();
    *own_handle.lock().unwrap() = Some(handle);
    let never = token.clone();
    task.observe(TaskStatus::Pause, move |_| { let _ = &never; }).unwrap(); // never runs: dropped at the end
    task.wait().unwrap();
    assert!(removed.load(Ordering::SeqCst), "the observer ran after its handle was known");
    assert!(!called_after_removal.load(Ordering::SeqCst), "a removed observer is not called again");
    let late = token.clone();
    let after_end = Events::default();
    let late_events = after_end.clone();
    task.observe(TaskStatus::Success, move |s| {
        let _ = &late;
        late_events.push(s);
    })
    .unwrap();
    after_end.wait_for(TaskStatus::Success);
    drop(storage); // returns once every callback has returned
    assert_eq!(Arc::strong_count(&token), 1, "every closure was dropped");
}

#[test]
fn dropping_the_storage_cancels_running_tasks_safely() {
    let (storage, name) = Emulator::get("production").slow_storage("dropped-storage", 200);
    let reference = storage.reference(&name).unwrap();
    let tasks: Vec<_> = (0..3).map(|i| reference.child(&i.to_string()).unwrap().put_data(&payload(SMALL_CHUNK * 4), None).unwrap()).collect();
    let events = Events::default();
    events.observe_all(&tasks[0]);
    events.wait_for(TaskStatus::Progress);
    drop(storage);
    for task in &tasks {
        assert_eq!(task.wait().unwrap_err().code, ErrorCode::Cancelled);
    }
    assert_eq!(block_on(tasks[1].clone()).unwrap_err().code, ErrorCode::Cancelled);
    assert_eq!(reference.metadata().unwrap_err().code, ErrorCode::InvalidArgument, "storage closed");
    assert_eq!(reference.full_path(), name, "the reference itself stays usable");
}

#[test]
fn one_storage_used_from_many_threads() {
    let storage = Arc::new(Emulator::get("production").storage());
    let folder = Arc::new(storage.reference(&unique("threads")).unwrap());
    let workers: Vec<_> = (0..8)
        .map(|i| {
            let (storage, folder) = (storage.clone(), folder.clone());
            std::thread::spawn(move || {
                let reference = folder.child(&format!("{i}")).unwrap();
                let data = payload(1000 + i);
                reference.put_data(&data, None).unwrap().wait().unwrap();
                assert_eq!(reference.get_data(10_000).unwrap(), data);
                assert_eq!(storage.reference(&reference.full_path()).unwrap().metadata().unwrap().size, Some(1000 + i));
            })
        })
        .collect();
    workers.into_iter().for_each(|w| w.join().unwrap());
    assert_eq!(folder.list_all().unwrap().item_paths().len(), 8);
}

#[test]
fn wait_from_a_final_observer_returns_the_outcome() {
    let storage = Emulator::get("production").storage();
    let task = storage.reference(&unique("wait-in-success")).unwrap().put_data(b"x", None).unwrap();
    let (sender, waited) = std::sync::mpsc::channel();
    let inner = task.clone();
    task.observe(TaskStatus::Success, move |_| sender.send(inner.wait().map(|s| s.status)).unwrap()).unwrap();
    let outcome = waited.recv_timeout(std::time::Duration::from_secs(30)).expect("wait from the observer hung");
    assert_eq!(outcome.unwrap(), TaskStatus::Success);
}
