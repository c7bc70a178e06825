//! Streams: [`ObjectReader`] (`Read + Seek`) over `fbs_reference_stream`, [`ObjectWriter`]
//! (`Write`) over `fbs_reference_put_stream`, each with async forms.
//!
//! The library calls the sink and the source on the storage's transfer thread, which moves no
//! other transfer meanwhile, so neither ever waits for the Rust side: a full reader buffer
//! pauses the download (reading resumes it once drained; the library continues with Range
//! from the next byte), and an empty writer buffer answers `FBS_SOURCE_NOT_READY` (writing
//! resumes the upload). Memory stays at about [`STREAM_BUFFER`] each way, whatever the size.
use std::collections::VecDeque;
use std::future::{poll_fn, Future};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::raw::c_void;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::{Poll, Waker};

use crate::error::{ErrorCode, Result, StorageError};
use crate::metadata::{raw_changes, Metadata, MetadataChanges};
use crate::reference::Reference;
use crate::registry::{lock, user_data, Registry};
use crate::sys;
use crate::task::{Task, TaskStatus};

/// The most a stream holds between the library and Rust, each way.
pub const STREAM_BUFFER: usize = 4 << 20;

/// A buffer shared by the library's thread and the reading or writing side: a condition
/// variable for blocking calls, wakers for async ones.
struct Shared<S> {
    state: Mutex<S>,
    changed: Condvar,
    wakers: Mutex<Vec<Waker>>,
}

impl<S: Default> Shared<S> {
    fn new() -> Arc<Self> {
        Arc::new(Shared { state: Mutex::default(), changed: Condvar::new(), wakers: Mutex::default() })
    }

    fn lock(&self) -> MutexGuard<'_, S> {
        lock(&self.state)
    }

    fn notify(&self) {
        self.changed.notify_all();
        std::mem::take(&mut *lock(&self.wakers)).into_iter().for_each(Waker::wake);
    }

    /// Blocks until `ready(state)`.
    fn wait_until(&self, ready: impl Fn(&S) -> bool) -> MutexGuard<'_, S> {
        let mut state = self.lock();
        while !ready(&state) {
            state = self.changed.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
        }
        state
    }

    /// Pending (the waker kept) until `ready(state)`; then `Some(state)`.
    fn poll_ready(&self, waker: &Waker, ready: impl Fn(&S) -> bool) -> Option<MutexGuard<'_, S>> {
        let mut wakers = lock(&self.wakers); // registered before looking: a notify in between wakes it
        if !wakers.iter().any(|w| w.will_wake(waker)) {
            wakers.push(waker.clone());
        }
        drop(wakers);
        let state = self.lock();
        ready(&state).then_some(state)
    }
}

fn io_error(error: StorageError) -> io::Error {
    io::Error::other(error)
}

type Sink = dyn FnMut(&[u8]) -> i32 + Send;
static SINKS: Registry<Sink> = Registry::new();

unsafe extern "C" fn on_bytes(bytes: *const c_void, length: usize, key: *mut c_void) -> i32 {
    let bytes = if length == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(bytes.cast::<u8>(), length) } };
    let mut code = ErrorCode::Cancelled.raw();
    SINKS.call(key, |sink| code = sink(bytes));
    code
}

#[derive(Default)]
struct Download {
    bytes: VecDeque<u8>,
    task: Option<Task>,
    paused: bool,   // the sink paused the download: the reader is behind
    ended: bool,    // the task's end observer ran: no byte follows
    stopping: bool, // dropped before the end: refuse further bytes
}

/// One running `fbs_reference_stream` of a range.
struct DownloadStream {
    shared: Arc<Shared<Download>>,
    task: Task,
    key: u64,
}

impl DownloadStream {
    fn start(reference: &Reference, offset: i64, length: i64) -> Result<DownloadStream> {
        let shared = Shared::<Download>::new();
        let sink_side = shared.clone();
        let key = SINKS.insert(Box::new(move |bytes: &[u8]| {
            let mut state = sink_side.lock();
            if state.stopping {
                return ErrorCode::Cancelled.raw();
            }
            state.bytes.extend(bytes);
            if state.bytes.len() >= STREAM_BUFFER && !state.paused {
                if let Some(task) = &state.task {
                    // Under the lock, so that the reader's resume comes after it; on this thread
                    // the pause acts at once: no further byte arrives until the resume.
                    state.paused = task.pause().is_ok();
                }
            }
            drop(state);
            sink_side.notify();
            0
        }));
        let task = Task::start(|out| unsafe { sys::fbs_reference_stream(reference.raw(), offset, length, Some(on_bytes), user_data(key), out) });
        let task = match task {
            Ok(task) => task,
            Err(error) => {
                SINKS.remove(key);
                return Err(error);
            }
        };
        shared.lock().task = Some(task.clone());
        for status in [TaskStatus::Success, TaskStatus::Failure] {
            let end_side = shared.clone();
            task.observe(status, move |_| {
                end_side.lock().ended = true;
                end_side.notify();
            })?;
        }
        Ok(DownloadStream { shared, task, key })
    }

    /// Moves buffered bytes to `buf` (0 at the end; the download's failure as an error).
    fn take(&self, mut state: MutexGuard<'_, Download>, buf: &mut [u8]) -> io::Result<usize> {
        if state.bytes.is_empty() {
            drop(state);
            return self.task.wait().map(|_| 0).map_err(io_error);
        }
        let n = state.bytes.read(buf)?;
        let resume = state.paused && state.bytes.len() <= STREAM_BUFFER / 4 && !state.ended;
        if resume {
            state.paused = false;
        }
        drop(state);
        if resume {
            self.task.resume().map_err(io_error)?;
        }
        Ok(n)
    }

    fn ready(state: &Download) -> bool {
        !state.bytes.is_empty() || state.ended
    }

    fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.take(self.shared.wait_until(Self::ready), buf)
    }

    async fn read_async(&self, buf: &mut [u8]) -> io::Result<usize> {
        let mut buf = Some(buf);
        poll_fn(|cx| match self.shared.poll_ready(cx.waker(), Self::ready) {
            Some(state) => Poll::Ready(self.take(state, buf.take().expect("polled after completion"))),
            None => Poll::Pending,
        })
        .await
    }
}

impl Drop for DownloadStream {
    fn drop(&mut self) {
        let ended = {
            let mut state = self.shared.lock();
            state.stopping = true;
            state.bytes = VecDeque::new();
            state.task = None;
            state.ended
        };
        if !ended {
            let _ = self.task.cancel();
        }
        SINKS.remove(self.key);
    }
}

/// A download as `Read + Seek` (from [`Reference::reader`] or [`Reference::range_reader`]):
/// one streamed request per sequential run, resumed with Range after a dropped connection; a
/// seek elsewhere starts a new one at the next read. Reading fails with the download's error
/// (`io::Error::other` of a [`StorageError`]); the whole object's CRC32C is checked when read
/// from its start to its end. Dropping it cancels what still runs.
pub struct ObjectReader {
    reference: Reference,
    start: u64,
    end: u64,
    position: u64,
    stream: Option<DownloadStream>,
}

impl ObjectReader {
    pub(crate) fn new(reference: &Reference, offset: u64, length: Option<u64>) -> Result<ObjectReader> {
        let end = match length {
            Some(length) => offset.saturating_add(length),
            None => reference.metadata()?.size.unwrap_or(0),
        };
        Ok(ObjectReader { reference: reference.clone(), start: offset, end: end.max(offset), position: 0, stream: None })
    }

    /// The length of the range read.
    pub fn len(&self) -> u64 {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The running download's task (its progress; `set_max_speed`), once a read started it.
    pub fn task(&self) -> Option<&Task> {
        self.stream.as_ref().map(|s| &s.task)
    }

    fn stream(&mut self) -> Result<Option<&DownloadStream>> {
        if self.stream.is_none() && self.position < self.len() {
            let offset = self.start + self.position;
            let length = self.end - offset;
            let as_i64 = |v: u64| i64::try_from(v).map_err(|_| StorageError::new(ErrorCode::InvalidArgument, "range beyond 2^63"));
            self.stream = Some(DownloadStream::start(&self.reference, as_i64(offset)?, as_i64(length)?)?);
        }
        Ok(self.stream.as_ref())
    }

    /// Starts the download now (reads start it anyway), e.g. to set its task's speed cap.
    pub fn start(&mut self) -> Result<()> {
        self.stream().map(|_| ())
    }

    /// As `Read::read`, without blocking a thread: for async code on any executor.
    pub async fn read_async(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = match self.stream().map_err(io_error)? {
            Some(stream) if !buf.is_empty() => stream.read_async(buf).await?,
            _ => 0,
        };
        self.position += n as u64;
        Ok(n)
    }
}

impl Read for ObjectReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = match self.stream().map_err(io_error)? {
            Some(stream) if !buf.is_empty() => stream.read(buf)?,
            _ => 0,
        };
        self.position += n as u64;
        Ok(n)
    }
}

impl Seek for ObjectReader {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(at) => Some(at),
            SeekFrom::End(delta) => self.len().checked_add_signed(delta),
            SeekFrom::Current(delta) => self.position.checked_add_signed(delta),
        }
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "seek before the start"))?;
        if target != self.position {
            self.stream = None; // cancels the running download; the next read starts another
            self.position = target;
        }
        Ok(target)
    }
}

impl std::fmt::Debug for ObjectReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectReader").field("reference", &self.reference).field("range", &(self.start..self.end)).field("position", &self.position).finish()
    }
}

type Source = dyn FnMut(&mut [u8]) -> i64 + Send;
static SOURCES: Registry<Source> = Registry::new();

unsafe extern "C" fn on_read(buffer: *mut c_void, capacity: usize, key: *mut c_void) -> i64 {
    let buffer = if capacity == 0 { &mut [][..] } else { unsafe { std::slice::from_raw_parts_mut(buffer.cast::<u8>(), capacity) } };
    let mut count = i64::from(ErrorCode::Cancelled.raw());
    SOURCES.call(key, |source| count = source(buffer));
    count
}

const SOURCE_NOT_READY: i64 = -1;

#[derive(Default)]
struct Upload {
    bytes: VecDeque<u8>,
    waiting: bool,  // the source answered NOT_READY and nothing resumed the upload since
    finished: bool, // no more writes: the source reports the end
    aborted: bool,
    ended: bool,
}

/// An upload of unknown length as `Write` (from [`Reference::writer`]). [`ObjectWriter::finish`]
/// reports the end and returns the stored object's metadata; dropping the writer unfinished
/// aborts the upload (nothing is stored). Up to 256 KiB goes in one request, more in a
/// resumable session.
pub struct ObjectWriter {
    shared: Arc<Shared<Upload>>,
    task: Task,
    key: u64,
}

impl ObjectWriter {
    pub(crate) fn new(reference: &Reference, metadata: Option<&MetadataChanges>) -> Result<ObjectWriter> {
        let shared = Shared::<Upload>::new();
        let source_side = shared.clone();
        let key = SOURCES.insert(Box::new(move |buffer: &mut [u8]| {
            let mut state = source_side.lock();
            if state.aborted {
                return ErrorCode::Cancelled.raw().into();
            }
            if state.bytes.is_empty() {
                if state.finished {
                    return 0;
                }
                state.waiting = true;
                return SOURCE_NOT_READY;
            }
            let n = state.bytes.read(buffer).unwrap_or(0);
            drop(state);
            source_side.notify();
            n as i64
        }));
        let (_keep, m) = raw_changes(metadata)?;
        let task = match Task::start(|out| unsafe { sys::fbs_reference_put_stream(reference.raw(), Some(on_read), user_data(key), m, out) }) {
            Ok(task) => task,
            Err(error) => {
                SOURCES.remove(key);
                return Err(error);
            }
        };
        for status in [TaskStatus::Success, TaskStatus::Failure] {
            let end_side = shared.clone();
            task.observe(status, move |_| {
                let mut state = end_side.lock();
                state.ended = true;
                state.bytes = VecDeque::new();
                drop(state);
                end_side.notify();
            })?;
        }
        Ok(ObjectWriter { shared, task, key })
    }

    /// The upload's task: progress, pause/resume, `set_max_speed`.
    pub fn task(&self) -> &Task {
        &self.task
    }

    /// Resumes the upload if its source waits for bytes. The library runs a resume on the
    /// transfer thread after the source's call that set `waiting`, so none is lost.
    fn wake_source(&self) -> Result<()> {
        let waiting = std::mem::take(&mut self.shared.lock().waiting);
        if waiting { self.task.resume() } else { Ok(()) }
    }

    fn has_room(state: &Upload) -> bool {
        state.bytes.len() < STREAM_BUFFER || state.ended
    }

    fn put(&self, mut state: MutexGuard<'_, Upload>, data: &[u8]) -> io::Result<usize> {
        if state.ended {
            drop(state);
            let error = self.task.wait().err().unwrap_or_else(|| StorageError::new(ErrorCode::InvalidArgument, "the upload has ended"));
            return Err(io_error(error));
        }
        let n = data.len().min(STREAM_BUFFER - state.bytes.len());
        state.bytes.extend(&data[..n]);
        drop(state);
        self.wake_source().map_err(io_error)?;
        Ok(n)
    }

    /// As `Write::write`, without blocking a thread.
    pub async fn write_async(&mut self, data: &[u8]) -> io::Result<usize> {
        let state = poll_fn(|cx| match self.shared.poll_ready(cx.waker(), Self::has_room) {
            Some(state) => Poll::Ready(state),
            None => Poll::Pending,
        })
        .await;
        self.put(state, data)
    }

    fn end_input(&self) -> Result<()> {
        self.shared.lock().finished = true;
        self.wake_source()
    }

    /// Reports the end of the bytes, waits for the upload and returns the stored object's metadata.
    pub fn finish(self) -> Result<Metadata> {
        self.end_input()?;
        Self::metadata(self.task.wait())
    }

    /// As `finish`, awaiting the upload instead of blocking.
    pub fn finish_async(self) -> impl Future<Output = Result<Metadata>> {
        let ended = self.end_input();
        let task = self.task.clone();
        async move {
            ended?;
            Self::metadata(task.await)
        }
    }

    fn metadata(outcome: Result<crate::Snapshot>) -> Result<Metadata> {
        outcome?.metadata.ok_or_else(|| StorageError::new(ErrorCode::Internal, "no metadata after the upload"))
    }
}

impl Write for ObjectWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if data.is_empty() {
            return Ok(0);
        }
        let state = self.shared.wait_until(Self::has_room);
        self.put(state, data)
    }

    /// Nothing to do: the library takes the bytes as it can send them; `finish` ends the upload.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for ObjectWriter {
    fn drop(&mut self) {
        let unfinished = {
            let mut state = self.shared.lock();
            let unfinished = !state.finished && !state.ended;
            state.aborted = unfinished;
            unfinished
        };
        if unfinished {
            let _ = self.task.cancel();
        }
        // After finish() the source may still be asked for the end: it stays until the task ends.
        let key = self.key;
        let _ = self.task.observe(TaskStatus::Success, move |_| SOURCES.remove(key));
        let _ = self.task.observe(TaskStatus::Failure, move |_| SOURCES.remove(key));
    }
}

impl std::fmt::Debug for ObjectWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectWriter").field("task", &self.task).finish()
    }
}
