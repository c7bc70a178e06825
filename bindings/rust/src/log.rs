//! [`set_log_handler`]: the library's debug log, to a closure (no `log` crate needed).
use std::ffi::CStr;
use std::os::raw::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::RwLock;

use crate::sys;

/// The level of a library log line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// An operation or task failed for good.
    Error = 1,
    /// A retry after a failure, an upload starting over.
    Warning = 2,
    /// A resumable upload's position after asking the server.
    Info = 3,
    /// One line per HTTP attempt.
    Debug = 4,
}

impl std::fmt::Display for LogLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LogLevel::Error => "ERROR",
            LogLevel::Warning => "WARNING",
            LogLevel::Info => "INFO",
            LogLevel::Debug => "DEBUG",
        })
    }
}

type Handler = Box<dyn Fn(LogLevel, &str) + Send + Sync>;
/// Read-locked during each call, so replacing the handler waits for running calls.
static HANDLER: RwLock<Option<Handler>> = RwLock::new(None);

unsafe extern "C" fn on_line(level: i32, line: *const c_char, _: *mut c_void) {
    let line = unsafe { CStr::from_ptr(line) }.to_string_lossy();
    let level = match level {
        1 => LogLevel::Error,
        2 => LogLevel::Warning,
        3 => LogLevel::Info,
        _ => LogLevel::Debug,
    };
    let handler = HANDLER.read().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(handler) = handler.as_ref() {
        if catch_unwind(AssertUnwindSafe(|| handler(level, &line))).is_err() {
            eprintln!("fbstorage: the log handler panicked; the panic was stopped at the library boundary");
        }
    }
}

/// Sets the process-wide log handler, for every storage; None disables logging (the default).
/// The handler runs on the library's transfer threads, possibly on several at once: keep it
/// quick and call nothing of this crate from it. Lines never hold tokens, header values or
/// session IDs. When this returns, the previous handler is not running and is not called again.
///
/// ```
/// fbstorage::set_log_handler(Some(|level: fbstorage::LogLevel, line: &str| eprintln!("{level} {line}")));
/// fbstorage::set_log_handler(None::<fn(fbstorage::LogLevel, &str)>);
/// ```
pub fn set_log_handler<F: Fn(LogLevel, &str) + Send + Sync + 'static>(handler: Option<F>) {
    let enabled = handler.is_some();
    *HANDLER.write().unwrap_or_else(|poisoned| poisoned.into_inner()) = handler.map(|h| Box::new(h) as Handler);
    unsafe { sys::fbs_library_set_log_handler(if enabled { Some(on_line) } else { None }, std::ptr::null_mut()) };
}
