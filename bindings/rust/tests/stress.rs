//! 16 concurrent uploads while other threads add and remove observers (some removing
//! themselves from their own call), half the task handles dropped at once: every upload
//! lands intact and every closure is dropped by the time the storage is.
mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use common::{payload, Emulator, SMALL_CHUNK};
use fbstorage::TaskStatus;

#[test]
fn sixteen_uploads_with_observers_churning() {
    let (storage, folder) = Emulator::get("production").slow_storage("stress", 20);
    let token = Arc::new(()); // captured by every closure: its count tells whether one leaked
    let (succeeded, finished) = mpsc::channel();
    let calls = Arc::new(AtomicUsize::new(0));
    let mut kept = Vec::new();
    for i in 0..16u64 {
        let data = payload(SMALL_CHUNK * 3 + i * 1000);
        let task = storage.reference(&format!("{folder}/{i}")).unwrap().put_data(&data, None).unwrap();
        let (held, done) = (token.clone(), succeeded.clone());
        task.observe(TaskStatus::Success, move |s| {
            let _ = &held;
            done.send((i, s.metadata.clone().unwrap().size)).unwrap();
        })
        .unwrap();
        // Removes itself from its own second call.
        let own: Arc<Mutex<Option<fbstorage::ObserverHandle>>> = Arc::default();
        let (me, task_in_callback, held, count) = (own.clone(), task.clone(), token.clone(), calls.clone());
        let handle = task
            .observe(TaskStatus::Progress, move |_| {
                let _ = &held;
                if count.fetch_add(1, Ordering::Relaxed) % 2 == 1
                    && let Some(h) = me.lock().unwrap().take()
                {
                    task_in_callback.remove_observer(h).unwrap();
                }
            })
            .unwrap();
        *own.lock().unwrap() = Some(handle);
        if i % 2 == 0 {
            kept.push(task);
        } // odd tasks: the handle is dropped here, the upload goes on
    }
    drop(succeeded);

    let stop = Arc::new(AtomicBool::new(false));
    let churners: Vec<_> = (0..4)
        .map(|n| {
            let (tasks, stop, token) = (kept.clone(), stop.clone(), token.clone());
            std::thread::spawn(move || {
                let mut rounds = 0;
                while !stop.load(Ordering::Relaxed) || rounds == 0 {
                    for task in &tasks {
                        let held = token.clone();
                        let status = [TaskStatus::Progress, TaskStatus::Pause, TaskStatus::Resume][(rounds + n) % 3];
                        let handle = task.observe(status, move |_| {
                            let _ = &held;
                        });
                        if let Ok(handle) = handle {
                            task.remove_observer(handle).unwrap();
                        }
                    }
                    rounds += 1;
                }
                rounds
            })
        })
        .collect();

    let mut sizes: Vec<_> = finished.iter().take(16).collect();
    stop.store(true, Ordering::Relaxed);
    let rounds: usize = churners.into_iter().map(|c| c.join().unwrap()).sum();
    sizes.sort();
    assert_eq!(sizes, (0..16u64).map(|i| (i, Some(SMALL_CHUNK * 3 + i * 1000))).collect::<Vec<_>>());
    assert!(rounds >= 4 && calls.load(Ordering::Relaxed) > 0);
    for i in [0u64, 7, 15] {
        let data = storage.reference(&format!("{folder}/{i}")).unwrap().get_data(u64::MAX).unwrap();
        assert_eq!(data, payload(SMALL_CHUNK * 3 + i * 1000));
    }
    drop(kept);
    drop(storage); // returns once no callback runs or will run
    assert_eq!(Arc::strong_count(&token), 1, "a closure outlived its task");
}

/// Eight streams at once, up and down, one reader dropped part-way and one writer dropped
/// unfinished: every byte intact, nothing stored for the dropped writer.
#[test]
fn eight_concurrent_streams() {
    use std::io::{Read, Write};
    let storage = Arc::new(Emulator::get("production").storage());
    storage.set_upload_chunk_size(SMALL_CHUNK).unwrap();
    let data = Arc::new(payload(2 * fbstorage::STREAM_BUFFER as u64 + 12345));
    let source = storage.reference(&common::unique("stress/streams.bin")).unwrap();
    let mut writer = source.writer(None).unwrap();
    writer.write_all(&data).unwrap();
    writer.finish().unwrap();
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let (storage, data, source) = (storage.clone(), data.clone(), source.clone());
            std::thread::spawn(move || match i % 4 {
                0 | 1 => {
                    let (mut reader, mut all, mut block) = (source.reader().unwrap(), Vec::new(), [0u8; 4096]);
                    loop {
                        let n = reader.read(&mut block).unwrap();
                        if n == 0 {
                            break;
                        }
                        all.extend_from_slice(&block[..n]);
                    }
                    assert!(all == *data, "reader {i}: {} bytes", all.len());
                }
                2 => {
                    let mut reader = source.reader().unwrap();
                    let mut part = vec![0; fbstorage::STREAM_BUFFER / 2 + i];
                    reader.read_exact(&mut part).unwrap();
                    assert!(part == data[..part.len()]);
                }
                _ => {
                    let reference = storage.reference(&common::unique("stress/written.bin")).unwrap();
                    let mut writer = reference.writer(None).unwrap();
                    let size = 3 * SMALL_CHUNK as usize + i;
                    writer.write_all(&data[..size]).unwrap();
                    if i == 3 {
                        let task = writer.task().clone();
                        drop(writer);
                        assert!(task.wait().is_err());
                        assert_eq!(reference.metadata().unwrap_err().code, fbstorage::ErrorCode::ObjectNotFound);
                    } else {
                        assert_eq!(writer.finish().unwrap().size, Some(size as u64));
                    }
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
}
