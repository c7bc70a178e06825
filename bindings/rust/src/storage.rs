//! [`Storage`]: one bucket, its settings, its transfer and callback threads.
use std::ptr::NonNull;
use std::time::Duration;

use crate::error::{check, ErrorCode, Result, StorageError};
use crate::reference::Reference;
use crate::strings::{borrowed, c_path, c_string, c_string_opt, ptr};
use crate::sys;

/// One bucket. Every call is thread-safe, so a `Storage` is `Send + Sync` (share it with an `Arc`).
///
/// Dropping it cancels the tasks still running (they end with [`ErrorCode::Cancelled`], their
/// futures resolve) and waits for its callbacks to return. References and tasks made from it
/// stay safe to use: their operations then fail with [`ErrorCode::InvalidArgument`].
///
/// ```
/// // FIREBASE_STORAGE_EMULATOR_HOST=host:port sends everything to that emulator.
/// let storage = fbstorage::Storage::new("my-app.appspot.com")?;
/// assert_eq!(storage.bucket(), "my-app.appspot.com");
/// let photo = storage.reference("images/cat.jpg")?;
/// assert_eq!(photo.name(), "cat.jpg");
/// # Ok::<(), fbstorage::StorageError>(())
/// ```
pub struct Storage {
    raw: NonNull<sys::fbs_storage>,
}

// SAFETY: the header states that every function is thread-safe, and a storage's handle stays
// valid until fbs_storage_free, which only Drop calls.
unsafe impl Send for Storage {}
unsafe impl Sync for Storage {}

fn speed(bytes_per_second: u64) -> i64 {
    i64::try_from(bytes_per_second).unwrap_or(i64::MAX)
}

fn seconds(duration: Duration) -> f64 {
    duration.as_secs_f64()
}

impl Storage {
    /// A storage for `bucket` ("my-app.appspot.com" or "gs://my-app.appspot.com"). When
    /// FIREBASE_STORAGE_EMULATOR_HOST is set, it talks to that emulator.
    pub fn new(bucket: &str) -> Result<Storage> {
        let bucket = c_string(bucket)?;
        let mut raw = std::ptr::null_mut();
        check(unsafe { sys::fbs_storage_new(bucket.as_ptr(), &mut raw) })?;
        NonNull::new(raw).map(|raw| Storage { raw }).ok_or_else(|| StorageError::new(ErrorCode::Internal, "fbs_storage_new returned NULL"))
    }

    pub(crate) fn raw(&self) -> *mut sys::fbs_storage {
        self.raw.as_ptr()
    }

    /// The bucket name without "gs://".
    pub fn bucket(&self) -> String {
        unsafe { borrowed(sys::fbs_storage_bucket(self.raw())) }.unwrap_or_default()
    }

    /// Sends every request to an emulator at http://host:port.
    pub fn use_emulator(&self, host: &str, port: u16) -> Result<()> {
        let host = c_string(host)?;
        check(unsafe { sys::fbs_storage_use_emulator(self.raw(), host.as_ptr(), port.into()) })
    }

    /// A fixed Firebase Auth ID token (None clears it). See also `use_auth`.
    pub fn set_auth_token(&self, token: Option<&str>) -> Result<()> {
        let token = c_string_opt(token)?;
        check(unsafe { sys::fbs_storage_set_auth_token(self.raw(), ptr(&token)) })
    }

    /// The App Check token (None clears it).
    pub fn set_app_check_token(&self, token: Option<&str>) -> Result<()> {
        let token = c_string_opt(token)?;
        check(unsafe { sys::fbs_storage_set_app_check_token(self.raw(), ptr(&token)) })
    }

    /// How long uploads started afterwards may keep retrying (default 600 s).
    pub fn set_max_upload_retry_time(&self, limit: Duration) -> Result<()> {
        check(unsafe { sys::fbs_storage_set_max_upload_retry_time(self.raw(), seconds(limit)) })
    }

    /// How long downloads started afterwards may keep retrying (default 600 s).
    pub fn set_max_download_retry_time(&self, limit: Duration) -> Result<()> {
        check(unsafe { sys::fbs_storage_set_max_download_retry_time(self.raw(), seconds(limit)) })
    }

    /// How long other operations started afterwards may keep retrying (default 120 s).
    pub fn set_max_operation_retry_time(&self, limit: Duration) -> Result<()> {
        check(unsafe { sys::fbs_storage_set_max_operation_retry_time(self.raw(), seconds(limit)) })
    }

    /// Bytes per resumable-upload request (256 KiB ..= 1 GiB, default 128 MiB).
    pub fn set_upload_chunk_size(&self, bytes: u64) -> Result<()> {
        let bytes = i64::try_from(bytes).unwrap_or(i64::MAX);
        check(unsafe { sys::fbs_storage_set_upload_chunk_size(self.raw(), bytes) })
    }

    /// The bytes per resumable-upload request.
    pub fn upload_chunk_size(&self) -> Result<u64> {
        let mut bytes = 0;
        check(unsafe { sys::fbs_storage_get_upload_chunk_size(self.raw(), &mut bytes) })?;
        Ok(bytes as u64)
    }

    /// Trust the CA certificates in this PEM file instead of the system store (None restores it).
    pub fn set_ca_file(&self, pem: Option<&std::path::Path>) -> Result<()> {
        let pem = pem.map(c_path).transpose()?;
        check(unsafe { sys::fbs_storage_set_ca_file(self.raw(), ptr(&pem)) })
    }

    /// Caps each request's upload in bytes per second (0: none, the default), running ones too
    /// within about a second. Each request is capped on its own.
    pub fn set_max_upload_speed(&self, bytes_per_second: u64) -> Result<()> {
        check(unsafe { sys::fbs_storage_set_max_upload_speed(self.raw(), speed(bytes_per_second)) })
    }

    /// The upload cap in bytes per second (0: none).
    pub fn max_upload_speed(&self) -> Result<u64> {
        let mut out = 0;
        check(unsafe { sys::fbs_storage_get_max_upload_speed(self.raw(), &mut out) })?;
        Ok(out as u64)
    }

    /// Caps each request's download in bytes per second (0: none, the default), as uploads.
    pub fn set_max_download_speed(&self, bytes_per_second: u64) -> Result<()> {
        check(unsafe { sys::fbs_storage_set_max_download_speed(self.raw(), speed(bytes_per_second)) })
    }

    /// The download cap in bytes per second (0: none).
    pub fn max_download_speed(&self) -> Result<u64> {
        let mut out = 0;
        check(unsafe { sys::fbs_storage_get_max_download_speed(self.raw(), &mut out) })?;
        Ok(out as u64)
    }

    /// Ends the running work as `mode` says (`timeout`: how long `Finish` waits), without
    /// releasing the storage (dropping it still does). Stopped tasks end with
    /// [`ErrorCode::Cancelled`], their Failure observers having run; afterwards operations on
    /// this storage's handles fail with [`ErrorCode::InvalidArgument`]. A second close does
    /// nothing. Not to be called from an observer of this storage (it would not wait).
    pub fn close(&self, mode: CloseMode, timeout: Duration) -> Result<()> {
        check(unsafe { sys::fbs_storage_close(self.raw(), mode as i32, seconds(timeout)) })
    }

    /// A reference to `path` in this bucket ("" for the root).
    pub fn reference(&self, path: &str) -> Result<Reference> {
        let path = c_string(path)?;
        let mut raw = std::ptr::null_mut();
        check(unsafe { sys::fbs_storage_reference(self.raw(), path.as_ptr(), &mut raw) })?;
        Ok(unsafe { Reference::from_raw(raw) })
    }

    /// A reference from "gs://bucket/path" or an http(s) v0 URL of this bucket.
    pub fn reference_for_url(&self, url: &str) -> Result<Reference> {
        let url = c_string(url)?;
        let mut raw = std::ptr::null_mut();
        check(unsafe { sys::fbs_storage_reference_for_url(self.raw(), url.as_ptr(), &mut raw) })?;
        Ok(unsafe { Reference::from_raw(raw) })
    }
}

/// How [`Storage::close`] ends the work still running.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CloseMode {
    /// Cancel it; uploads also end their sessions on the server (dropping the storage keeps them).
    Cancel = 0,
    /// Stop it, keeping each upload's resumable session ([`crate::Task::upload_session`] is final).
    KeepSessions = 1,
    /// Let running tasks finish within the timeout, then as `KeepSessions`.
    Finish = 2,
}

impl Drop for Storage {
    fn drop(&mut self) {
        unsafe { sys::fbs_storage_free(self.raw()) }
    }
}

impl std::fmt::Debug for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Storage").field("bucket", &self.bucket()).finish()
    }
}
