//! The event contract through the binding, whose observers run on the library's callback
//! thread: a pause() from a PROGRESS observer takes effect before a download's end (the library
//! ends a download only after its PROGRESS observers returned), and no PROGRESS follows the end.
mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use common::{payload, unique, Emulator, Events, TempFile, FLAVORS};
use fbstorage::TaskStatus;

#[test]
fn a_pause_from_the_first_progress_past_256_kib_of_a_1_mib_download_takes_effect() {
    for flavor in FLAVORS {
        let emulator = Emulator::get(flavor);
        let storage = emulator.storage();
        let name = unique("held.bin");
        let reference = storage.reference(&name).unwrap();
        let data = payload(1 << 20);
        reference.put_data(&data, None).unwrap().wait().unwrap();
        let mut ended_first = Vec::new();
        for attempt in 0..30 {
            // The download's request waits 300 ms: its observers are there before any byte.
            emulator.add_fault(&format!(
                r#"{{"match": {{"method": "GET", "path_prefix": "/v0/b/rust-tests/o/{name}"}}, "times": 1, "action": {{"delay_ms": 300}}}}"#
            ));
            let target = TempFile::path("held");
            let task = reference.write_to_file(&target.0).unwrap();
            let pausing_at = Arc::new(AtomicU64::new(0));
            let (pauser, at) = (task.clone(), pausing_at.clone());
            task.observe(TaskStatus::Progress, move |s| {
                if s.bytes_transferred > 256 * 1024
                    && at.compare_exchange(0, s.bytes_transferred, Ordering::SeqCst, Ordering::SeqCst).is_ok()
                {
                    let _ = pauser.pause();
                }
            })
            .unwrap();
            let events = Events::default();
            events.observe_all(&task);
            let first = events.wait_until(|s| matches!(s.status, TaskStatus::Pause | TaskStatus::Success | TaskStatus::Failure));
            let at = pausing_at.load(Ordering::SeqCst);
            if first.status != TaskStatus::Pause {
                ended_first.push((attempt, first.status, at));
                continue;
            }
            assert!(at > 0 && first.bytes_transferred >= at, "paused at {} after asking at {at}", first.bytes_transferred);
            task.resume().unwrap();
            task.wait().unwrap();
            assert_eq!(std::fs::read(&target.0).unwrap(), data);
        }
        assert!(ended_first.is_empty(), "{flavor}: ended before the pause took effect: {ended_first:?}");
    }
}

#[test]
fn no_progress_after_the_end_of_300_small_uploads() {
    let storage = Emulator::get("production").storage();
    let folder = unique("order");
    let tasks: Vec<_> = (0..300)
        .map(|i| {
            let task = storage.reference(&format!("{folder}/{i}")).unwrap().put_data(b"seventeen bytes!!", None).unwrap();
            let events = Events::default();
            events.observe_all(&task);
            (task, events)
        })
        .collect();
    let mut wrong = Vec::new();
    for (i, (task, events)) in tasks.iter().enumerate() {
        task.wait().unwrap();
        events.wait_for(TaskStatus::Success);
        let statuses = events.statuses();
        if statuses.iter().filter(|s| **s == TaskStatus::Success).count() != 1 || statuses.last() != Some(&TaskStatus::Success) {
            wrong.push((i, statuses));
        }
    }
    assert!(wrong.is_empty(), "{wrong:?}");
}
