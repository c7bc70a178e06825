//! [`Task`]: an upload or file download, observable, pausable, awaitable.
use std::future::Future;
use std::os::raw::c_void;
use std::pin::Pin;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use crate::error::{check, http_status, ErrorCode, Result, StorageError};
use crate::metadata::Metadata;
use crate::registry::{lock, user_data, Registry};
use crate::strings::{borrowed, owned};
use crate::sys;

/// The events of a task, in the order they can happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TaskStatus {
    /// The task started or resumed.
    Resume = 1,
    /// Bytes moved.
    Progress = 2,
    Pause = 3,
    /// The final event of a task that succeeded.
    Success = 4,
    /// The final event of a task that failed or was cancelled.
    Failure = 5,
}

impl TaskStatus {
    fn from_raw(status: i32) -> Option<TaskStatus> {
        [TaskStatus::Resume, TaskStatus::Progress, TaskStatus::Pause, TaskStatus::Success, TaskStatus::Failure]
            .into_iter()
            .find(|s| *s as i32 == status)
    }

    /// Success or Failure: no event follows.
    pub fn is_final(self) -> bool {
        matches!(self, TaskStatus::Success | TaskStatus::Failure)
    }
}

/// The state of a task at one event, copied out of the library's snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    pub status: TaskStatus,
    pub bytes_transferred: u64,
    /// None until known (downloads before the response).
    pub total_bytes: Option<u64>,
    /// The failure, when `status` is `Failure`.
    pub error: Option<StorageError>,
    /// The object's metadata (uploads: after Success; downloads: once known).
    pub metadata: Option<Metadata>,
}

impl Snapshot {
    unsafe fn copy_from(s: *const sys::fbs_snapshot) -> Snapshot {
        unsafe {
            let code = sys::fbs_snapshot_error_code(s);
            let metadata = sys::fbs_snapshot_metadata(s);
            Snapshot {
                status: TaskStatus::from_raw(sys::fbs_snapshot_status(s)).unwrap_or(TaskStatus::Failure),
                bytes_transferred: sys::fbs_snapshot_bytes_transferred(s).max(0) as u64,
                total_bytes: u64::try_from(sys::fbs_snapshot_total_bytes(s)).ok(),
                error: (code != 0).then(|| StorageError {
                    code: ErrorCode::from_raw(code),
                    message: borrowed(sys::fbs_snapshot_error_message(s)).unwrap_or_default(),
                    http_status: http_status(sys::fbs_snapshot_error_http_status(s)),
                    server_response: borrowed(sys::fbs_snapshot_error_server_response(s)),
                }),
                metadata: (!metadata.is_null()).then(|| Metadata::copy_from(metadata)),
            }
        }
    }

    /// Ok for a success, the failure otherwise.
    fn outcome(self) -> Result<Snapshot> {
        match self.status {
            TaskStatus::Success => Ok(self),
            _ => Err(self.error.clone().unwrap_or_else(|| StorageError::new(ErrorCode::Unknown, "the task failed"))),
        }
    }
}

type Observer = dyn FnMut(&Snapshot) + Send;
static OBSERVERS: Registry<Observer> = Registry::new();

unsafe extern "C" fn on_event(snapshot: *const sys::fbs_snapshot, key: *mut c_void) {
    let snapshot = unsafe { Snapshot::copy_from(snapshot) };
    OBSERVERS.call(key, |observer| observer(&snapshot));
    if snapshot.status.is_final() {
        OBSERVERS.remove(key as u64); // it never runs again
    }
}

/// Identifies one observer of one task, for [`Task::remove_observer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ObserverHandle {
    key: u64,
    raw: sys::fbs_observer_handle,
}

struct Registered {
    handle: ObserverHandle,
    status: TaskStatus,
    /// The binding's own Success/Failure observers, which resolve futures and `wait`.
    internal: bool,
}

#[derive(Default)]
struct TaskState {
    outcome: Option<Result<Snapshot>>,
    wakers: Vec<Waker>,
    observers: Vec<Registered>,
}

struct TaskShared {
    raw: NonNull<sys::fbs_task>,
    state: Mutex<TaskState>,
}

// SAFETY: task functions are thread-safe (header); the handle is freed only by Drop.
unsafe impl Send for TaskShared {}
unsafe impl Sync for TaskShared {}

impl TaskShared {
    /// The task ended: resolve waiters, and drop the closures that will never run again (the
    /// library removed every observer; those of the final status are still being called and
    /// remove themselves in `on_event`).
    fn finish(&self, last: &Snapshot) {
        let (wakers, gone) = {
            let mut state = lock(&self.state);
            state.outcome = Some(last.clone().outcome());
            let (gone, kept) = std::mem::take(&mut state.observers).into_iter().partition(|o| o.status != last.status);
            state.observers = kept;
            (std::mem::take(&mut state.wakers), gone)
        };
        for observer in gone {
            OBSERVERS.remove(observer.handle.key);
        }
        wakers.into_iter().for_each(Waker::wake);
    }
}

impl Drop for TaskShared {
    fn drop(&mut self) {
        let state = lock(&self.state);
        // After the end, the observers left are of the final status: each is still to be called
        // once and removes itself. Before it (the task could not be observed), none will run.
        if state.outcome.is_none() {
            state.observers.iter().for_each(|o| OBSERVERS.remove(o.handle.key));
        }
        drop(state);
        unsafe { sys::fbs_task_free(self.raw.as_ptr()) }
    }
}

/// An upload or file download. It starts at once and runs to its end whether or not this handle
/// is kept (dropping it neither cancels nor stops observers).
///
/// Observe it with closures, control it with pause/resume/cancel, and get its outcome with the
/// blocking [`Task::wait`] or by awaiting it (it is a `Future`, woken from the library's
/// callback thread, usable from any executor). `Send + Sync + Clone`: clones share the task.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use fbstorage::{Storage, TaskStatus};
/// # assert!(std::env::var_os("FIREBASE_STORAGE_EMULATOR_HOST").is_some(), "doctests talk to an emulator: run them with `make test-rust` or under Tests/c/with-emulator.sh");
/// let storage = Storage::new("docs-bucket")?;
/// let task = storage.reference("docs/task/blob.bin")?.put_data(&vec![7u8; 1 << 20], None)?;
/// let seen = Arc::new(Mutex::new(0u64));
/// let progress = seen.clone();
/// task.observe(TaskStatus::Progress, move |s| *progress.lock().unwrap() = s.bytes_transferred)?;
/// let done = task.wait()?;
/// assert_eq!(done.metadata.unwrap().size, Some(1 << 20));
/// # Ok::<(), fbstorage::StorageError>(())
/// ```
///
/// Awaiting needs no particular runtime; here, the smallest executor, which parks its thread
/// until the library's callback thread wakes it:
///
/// ```
/// use std::{future::Future, pin::pin, sync::Arc, task::{Context, Poll, Wake, Waker}, thread::Thread};
///
/// struct Unpark(Thread);
/// impl Wake for Unpark {
///     fn wake(self: Arc<Self>) { self.0.unpark() }
/// }
/// fn block_on<F: Future>(future: F) -> F::Output {
///     let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
///     let mut future = pin!(future);
///     loop {
///         match future.as_mut().poll(&mut Context::from_waker(&waker)) {
///             Poll::Ready(output) => return output,
///             Poll::Pending => std::thread::park(),
///         }
///     }
/// }
///
/// # assert!(std::env::var_os("FIREBASE_STORAGE_EMULATOR_HOST").is_some(), "doctests talk to an emulator: run them with `make test-rust` or under Tests/c/with-emulator.sh");
/// let storage = fbstorage::Storage::new("docs-bucket")?;
/// let task = storage.reference("docs/task/awaited.txt")?.put_data(b"awaited", None)?;
/// let done = block_on(async { task.await })?;
/// assert_eq!(done.metadata.unwrap().size, Some(7));
/// # Ok::<(), fbstorage::StorageError>(())
/// ```
#[derive(Clone)]
pub struct Task {
    shared: Arc<TaskShared>,
}

impl Task {
    /// Starts a task with `start(out)`, then attaches the binding's final observers.
    pub(crate) fn start(start: impl FnOnce(*mut *mut sys::fbs_task) -> i32) -> Result<Task> {
        let mut raw = std::ptr::null_mut();
        check(start(&mut raw))?;
        let raw = NonNull::new(raw).ok_or_else(|| StorageError::new(ErrorCode::Internal, "NULL task"))?;
        let task = Task { shared: Arc::new(TaskShared { raw, state: Mutex::default() }) };
        for status in [TaskStatus::Success, TaskStatus::Failure] {
            // This closure keeps the task's state alive until the task ends.
            let shared = task.shared.clone();
            task.add_observer(status, Box::new(move |last: &Snapshot| shared.finish(last)), true)?;
        }
        Ok(task)
    }

    fn raw(&self) -> *mut sys::fbs_task {
        self.shared.raw.as_ptr()
    }

    fn add_observer(&self, status: TaskStatus, observer: Box<Observer>, internal: bool) -> Result<ObserverHandle> {
        let key = {
            let mut state = lock(&self.shared.state);
            if let Some(outcome) = &state.outcome {
                let ended_in = if outcome.is_ok() { TaskStatus::Success } else { TaskStatus::Failure };
                if status != ended_in {
                    return Ok(ObserverHandle { key: 0, raw: 0 }); // would never run (as in the Apple SDK)
                }
            }
            let key = OBSERVERS.insert(observer);
            state.observers.push(Registered { handle: ObserverHandle { key, raw: 0 }, status, internal });
            key
        };
        let mut raw = 0;
        let code = unsafe { sys::fbs_task_observe(self.raw(), status as i32, Some(on_event), user_data(key), &mut raw) };
        let mut state = lock(&self.shared.state);
        if code != 0 {
            let error = StorageError::last(code);
            state.observers.retain(|o| o.handle.key != key);
            drop(state);
            OBSERVERS.remove(key);
            return Err(error);
        }
        let handle = ObserverHandle { key, raw };
        if let Some(registered) = state.observers.iter_mut().find(|o| o.handle.key == key) {
            registered.handle = handle;
        }
        Ok(handle)
    }

    /// Calls `observer` on the library's callback thread for each event of `status`. A Resume
    /// observer added right after the task started sees its start; a Success or Failure
    /// observer added after the end sees it once.
    pub fn observe(&self, status: TaskStatus, observer: impl FnMut(&Snapshot) + Send + 'static) -> Result<ObserverHandle> {
        self.add_observer(status, Box::new(observer), false)
    }

    fn remove_where(&self, matches: impl Fn(&Registered) -> bool) -> Result<()> {
        let removed: Vec<ObserverHandle> = {
            let mut state = lock(&self.shared.state);
            let (removed, kept) = std::mem::take(&mut state.observers).into_iter().partition(|o| !o.internal && matches(o));
            state.observers = kept;
            removed.into_iter().map(|o| o.handle).collect()
        };
        let mut result = Ok(());
        for handle in removed {
            // Off the callback thread this waits for a running call of the observer to return.
            let code = unsafe { sys::fbs_task_remove_observer(self.raw(), handle.raw) };
            OBSERVERS.remove(handle.key);
            if result.is_ok() {
                result = check(code);
            }
        }
        result
    }

    /// Removes one observer: it is not called again, and its closure is dropped (at once, or
    /// after a call running on the callback thread returns).
    pub fn remove_observer(&self, handle: ObserverHandle) -> Result<()> {
        self.remove_where(|o| o.handle.key == handle.key)
    }

    /// Removes the observers of one status.
    pub fn remove_all_observers_for_status(&self, status: TaskStatus) -> Result<()> {
        self.remove_where(|o| o.status == status)
    }

    /// Removes every observer added with [`Task::observe`].
    pub fn remove_all_observers(&self) -> Result<()> {
        self.remove_where(|_| true)
    }

    /// Stops sending within ~100 ms (a Pause event follows).
    pub fn pause(&self) -> Result<()> {
        check(unsafe { sys::fbs_task_pause(self.raw()) })
    }

    /// Continues from what the server has (a Resume event follows).
    pub fn resume(&self) -> Result<()> {
        check(unsafe { sys::fbs_task_resume(self.raw()) })
    }

    /// Ends the task with Failure / [`ErrorCode::Cancelled`].
    pub fn cancel(&self) -> Result<()> {
        check(unsafe { sys::fbs_task_cancel(self.raw()) })
    }

    /// Caps this task's transfer in bytes per second (0: only the storage's caps), tightening
    /// the storage's cap; it applies within about a second.
    pub fn set_max_speed(&self, bytes_per_second: u64) -> Result<()> {
        check(unsafe { sys::fbs_task_set_max_speed(self.raw(), i64::try_from(bytes_per_second).unwrap_or(i64::MAX)) })
    }

    /// This task's own cap in bytes per second (0: none).
    pub fn max_speed(&self) -> Result<u64> {
        let mut out = 0;
        check(unsafe { sys::fbs_task_get_max_speed(self.raw(), &mut out) })?;
        Ok(out as u64)
    }

    /// The task's latest snapshot.
    pub fn snapshot(&self) -> Result<Snapshot> {
        let mut raw = std::ptr::null_mut();
        check(unsafe { sys::fbs_task_snapshot(self.raw(), &mut raw) })?;
        let snapshot = unsafe { Snapshot::copy_from(raw) };
        unsafe { sys::fbs_snapshot_free(raw) };
        Ok(snapshot)
    }

    /// The upload's resumable session, to persist and pass to
    /// [`Reference::put_file_resuming`](crate::Reference::put_file_resuming), possibly in
    /// another process; None while there is none (small uploads never have one). It changes as
    /// the upload goes on: persist the latest (e.g. after pausing).
    pub fn upload_session(&self) -> Result<Option<String>> {
        let mut out = std::ptr::null_mut();
        check(unsafe { sys::fbs_task_upload_session(self.raw(), &mut out) })?;
        Ok(unsafe { owned(out) })
    }

    /// Blocks until the task ended and its Success/Failure observers returned. Fails with
    /// `InvalidArgument` on the library's callback thread (it would never return).
    pub fn wait(&self) -> Result<Snapshot> {
        self.wait_ms(-1)
    }

    /// As `wait`, for at most `timeout`: [`ErrorCode::Timeout`] when it passes first (the task goes on).
    pub fn wait_timeout(&self, timeout: Duration) -> Result<Snapshot> {
        self.wait_ms(i64::try_from(timeout.as_millis()).unwrap_or(i64::MAX))
    }

    fn wait_ms(&self, timeout_ms: i64) -> Result<Snapshot> {
        let code = unsafe { sys::fbs_task_wait(self.raw(), timeout_ms) };
        if code == ErrorCode::Timeout.raw() {
            return Err(StorageError::last(code));
        }
        let refused = (code != 0).then(|| StorageError::last(code));
        if let Some(outcome) = &lock(&self.shared.state).outcome {
            return outcome.clone();
        }
        // A task that ended before the binding observed it: its end is still on the way to
        // our observer, but its latest snapshot is already the final one.
        match self.snapshot() {
            Ok(last) if last.status.is_final() => last.outcome(),
            // Not finished: called on the callback thread (refused by the library).
            _ => Err(refused.unwrap_or_else(|| StorageError::new(ErrorCode::Internal, "the task has not ended"))),
        }
    }
}

impl Future for Task {
    type Output = Result<Snapshot>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<Snapshot>> {
        let mut state = lock(&self.shared.state);
        if let Some(outcome) = &state.outcome {
            return Poll::Ready(outcome.clone());
        }
        if !state.wakers.iter().any(|w| w.will_wake(cx.waker())) {
            state.wakers.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

impl std::fmt::Debug for Task {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Task").field("snapshot", &self.snapshot().ok()).finish()
    }
}
