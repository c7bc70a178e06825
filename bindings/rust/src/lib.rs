//! Cloud Storage for Firebase as a signed-in user, from Rust: a thin safe layer over
//! `libfbstorage.so` (`include/fbstorage.h`), with no dependencies beyond the standard library.
//!
//! - [`Storage`] is a bucket; [`Reference`] an object path with its operations (metadata,
//!   delete, download URL, data, listing), which block the calling thread.
//! - Uploads and file downloads are [`Task`]s: observe them with closures, pause, resume or
//!   cancel them, then [`Task::wait`] or `.await` them on any executor.
//! - Streams in constant memory: [`Reference::reader`] / [`Reference::range_reader`]
//!   (`Read + Seek`), [`Reference::writer`] (`Write`, unknown length); byte ranges with
//!   [`Reference::get_range`]; async forms (`read_async`, `write_async`, `finish_async`,
//!   `get_range_async`) on any executor.
//! - [`Auth`] signs a user in (anonymously, by email, custom token or [`Credential`]) and runs
//!   the account's lifecycle (linking, email verification, password reset, …);
//!   [`Storage::use_auth`] sends that user's ID token.
//! - [`AppCheck`] gets App Check tokens (debug, custom or minted); [`Storage::use_app_check`] sends them.
//! - Failures are [`StorageError`]s carrying an [`ErrorCode`].
//!
//! Thread rules: every type is `Send + Sync` (every C call is thread-safe). Observers and
//! listeners run on the library's callback thread, one at a time, so they must be `Send`; they
//! may call any method except a blocking wait on an unfinished task (which fails instead of
//! hanging).
//!
//! ```
//! use fbstorage::{MetadataChanges, Storage, TaskStatus};
//! // With FIREBASE_STORAGE_EMULATOR_HOST=127.0.0.1:9199 this talks to the emulator.
//! # assert!(std::env::var_os("FIREBASE_STORAGE_EMULATOR_HOST").is_some(), "doctests talk to an emulator: run them with `make test-rust` or under Tests/c/with-emulator.sh");
//! let storage = Storage::new("my-app.appspot.com")?;
//! let file = std::env::temp_dir().join(format!("fbstorage-doc-{}.txt", std::process::id()));
//! std::fs::write(&file, b"hello from Rust")?;
//! let task = storage.reference("docs/hello.txt")?.put_file(&file, Some(&MetadataChanges::new().custom("lang", "rust")))?;
//! task.observe(TaskStatus::Progress, |s| println!("{} bytes", s.bytes_transferred))?;
//! let done = task.wait()?;
//! assert_eq!(done.metadata.unwrap().content_type.as_deref(), Some("text/plain"));
//! # std::fs::remove_file(&file)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_debug_implementations)]

mod action_code;
mod app_check;
mod auth;
mod completion;
mod credential;
mod error;
mod list;
mod log;
mod metadata;
mod reference;
mod registry;
mod storage;
mod stream;
mod strings;
pub mod sys;
mod task;
mod user_info;

pub use action_code::{ActionCodeInfo, ActionCodeSettings};
pub use app_check::{AppCheck, AppCheckRequest, AppCheckToken, TokenListenerHandle};
pub use auth::{AdditionalUserInfo, Auth, ListenerHandle, User};
pub use credential::Credential;
pub use error::{ErrorCode, Result, StorageError};
pub use list::{ListResult, Pages};
pub use log::{set_log_handler, LogLevel};
pub use metadata::{Metadata, MetadataChanges};
pub use reference::Reference;
pub use storage::{CloseMode, Storage};
pub use stream::{ObjectReader, ObjectWriter, STREAM_BUFFER};
pub use task::{ObserverHandle, Snapshot, Task, TaskStatus};
pub use user_info::UserInfo;

/// The version of the loaded library, e.g. "0.2.0".
pub fn version() -> String {
    unsafe { strings::borrowed(sys::fbs_version()) }.unwrap_or_default()
}
