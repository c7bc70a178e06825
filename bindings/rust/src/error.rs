//! `StorageError` and the library's codes as an enum.
use std::ffi::CStr;
use std::fmt;
use std::os::raw::c_int;

use crate::strings::borrowed;
use crate::sys;

macro_rules! codes {
    ($($(#[$doc:meta])* $variant:ident = $value:literal,)*) => {
        /// A failure's code: the Firebase `StorageErrorCode` raw values, `Timeout`, and the
        /// Firebase Auth codes (`fbs_error_code` in `fbstorage/common.h`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ErrorCode {
            $($(#[$doc])* $variant,)*
            /// A code this binding does not know (a newer library).
            Other(i32),
        }

        impl ErrorCode {
            /// The code for a raw `fbs_error_code` value.
            pub fn from_raw(code: i32) -> ErrorCode {
                match code { $($value => ErrorCode::$variant,)* other => ErrorCode::Other(other) }
            }
            /// The raw `fbs_error_code` value.
            pub fn raw(self) -> i32 {
                match self { $(ErrorCode::$variant => $value,)* ErrorCode::Other(code) => code }
            }
        }
    };
}

codes! {
    /// An unmapped server status; the message says which.
    Unknown = -13000,
    /// HTTP 404.
    ObjectNotFound = -13010,
    BucketNotFound = -13011,
    ProjectNotFound = -13012,
    /// HTTP 402; 429 once retries are spent.
    QuotaExceeded = -13013,
    /// HTTP 401 (after one token refresh).
    Unauthenticated = -13020,
    /// HTTP 403.
    Unauthorized = -13021,
    /// The deadline passed on retryable failures.
    RetryLimitExceeded = -13030,
    NonMatchingChecksum = -13031,
    DownloadSizeExceeded = -13032,
    /// The task or operation was cancelled.
    Cancelled = -13040,
    /// A bad argument (also: a string with an interior NUL, a closed storage).
    InvalidArgument = -13050,
    BucketMismatch = -13051,
    Internal = -13052,
    /// A bad URL or path.
    Path = -13053,
    /// `Task::wait_timeout`: the timeout passed first; the task goes on.
    Timeout = -13060,
    /// TLS: the server's certificate was refused (wrong CA, expired, another host's).
    Tls = -13061,
    /// A byte range reaches past the end of the object.
    RangeNotSatisfiable = -13062,
    /// The object was replaced (a new generation) during a download.
    ObjectChanged = -13063,
    /// The endpoint's host name does not exist (NXDOMAIN); never retried.
    HostNotFound = -13064,
    AuthInvalidApiKey = -13100,
    AuthInvalidEmail = -13101,
    AuthWrongPassword = -13102,
    AuthUserNotFound = -13103,
    AuthEmailAlreadyInUse = -13104,
    AuthWeakPassword = -13105,
    AuthUserDisabled = -13106,
    AuthInvalidCustomToken = -13107,
    AuthTooManyRequests = -13108,
    AuthOperationNotAllowed = -13109,
    AuthUserTokenExpired = -13110,
    AuthInvalidRefreshToken = -13111,
    AuthNoUser = -13112,
    AuthRequiresRecentLogin = -13113,
    AuthCredentialAlreadyInUse = -13114,
    AuthProviderAlreadyLinked = -13115,
    AuthInvalidActionCode = -13116,
    AuthExpiredActionCode = -13117,
    AuthInvalidCredential = -13118,
    AuthAccountExistsWithDifferentCredential = -13119,
    AuthUserMismatch = -13120,
    /// The server refuses the user's ID token (INVALID_ID_TOKEN): sign in again.
    AuthInvalidUserToken = -13121,
    CredentialInvalid = -13200,
    CredentialClockSkew = -13201,
    CredentialRejected = -13202,
    /// Storage refused the App Check token sent (401), even a fresh one.
    AppCheckTokenInvalid = -13300,
    /// Storage enforces App Check and the request carried no token (401).
    AppCheckTokenMissing = -13301,
    /// The App Check provider failed or answered an unusable token.
    AppCheckProviderFailed = -13302,
    /// The App Check service refused the debug token or custom token.
    AppCheckAttestationFailed = -13303,
    /// A token was asked of an App Check without a provider.
    AppCheckNoProvider = -13304,
}

impl ErrorCode {
    /// The library's name of the code, e.g. `"FBS_ERR_OBJECT_NOT_FOUND"`.
    pub fn name(self) -> &'static str {
        // SAFETY: fbs_error_name returns a static string for every code.
        unsafe { CStr::from_ptr(sys::fbs_error_name(self.raw())) }.to_str().unwrap_or("FBS_ERR_?")
    }
}

/// A failed call or task: the code, the library's message, and the server's answer when there was one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageError {
    pub code: ErrorCode,
    pub message: String,
    /// The HTTP status behind the failure, if a response was received.
    pub http_status: Option<u16>,
    /// The body of that response (tokens redacted by the library).
    pub server_response: Option<String>,
}

/// `Result` with [`StorageError`].
pub type Result<T> = std::result::Result<T, StorageError>;

impl StorageError {
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> StorageError {
        StorageError { code, message: message.into(), http_status: None, server_response: None }
    }

    /// The calling thread's last error, for a call that just returned `code`.
    pub(crate) fn last(code: c_int) -> StorageError {
        // SAFETY: the last-error accessors return borrowed strings valid until the next call on this thread.
        unsafe {
            StorageError {
                code: ErrorCode::from_raw(code),
                message: borrowed(sys::fbs_last_error_message()).unwrap_or_default(),
                http_status: http_status(sys::fbs_last_error_http_status()),
                server_response: borrowed(sys::fbs_last_error_server_response()),
            }
        }
    }
}

pub(crate) fn http_status(status: c_int) -> Option<u16> {
    u16::try_from(status).ok().filter(|&s| s != 0)
}

/// `Ok(())` for `FBS_OK`, else the thread's last error.
pub(crate) fn check(code: c_int) -> Result<()> {
    if code == 0 { Ok(()) } else { Err(StorageError::last(code)) }
}

impl fmt::Display for StorageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.name(), self.message)
    }
}

impl std::error::Error for StorageError {}
