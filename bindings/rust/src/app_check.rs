//! Firebase App Check: [`AppCheck`] gets tokens from its provider; [`Storage::use_app_check`]
//! makes a storage send them (`fbstorage/app_check.h`).
use std::os::raw::{c_char, c_int, c_void};
use std::ptr::NonNull;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::{check, ErrorCode, Result, StorageError};
use crate::metadata::time;
use crate::registry::{user_data, Registry};
use crate::storage::Storage;
use crate::strings::{borrowed, c_string, c_string_opt, owned, ptr};
use crate::sys;

/// An App Check token and when it expires. `Debug` never shows the token.
#[derive(Clone, PartialEq, Eq)]
pub struct AppCheckToken {
    /// A credential: never log it.
    pub token: String,
    pub expire_time: SystemTime,
}

impl std::fmt::Debug for AppCheckToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppCheckToken").field("expire_time", &self.expire_time).finish_non_exhaustive()
    }
}

fn millis(at: SystemTime) -> i64 {
    match at.duration_since(UNIX_EPOCH) {
        Ok(after) => after.as_millis().try_into().unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_millis()).unwrap_or(i64::MAX),
    }
}

/// One request of the library for a token, given to a custom provider: answer it once, now or
/// later, from any thread. Dropped unanswered, it fails (the waiting request never hangs).
pub struct AppCheckRequest {
    raw: *mut sys::fbs_app_check_request,
    limited_use: bool,
}

// SAFETY: the request handle may be answered from any thread (header); it is answered once, by
// value (complete, fail or Drop).
unsafe impl Send for AppCheckRequest {}

impl std::fmt::Debug for AppCheckRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppCheckRequest").field("limited_use", &self.limited_use).finish_non_exhaustive()
    }
}

impl AppCheckRequest {
    /// Whether a limited-use token is asked for (for [`AppCheck::limited_use_token`]).
    pub fn limited_use(&self) -> bool {
        self.limited_use
    }

    /// Answers with token. An unusable one (empty, with a control character, already expired)
    /// fails the waiting request with [`ErrorCode::AppCheckProviderFailed`] and is returned here.
    pub fn complete(self, token: &AppCheckToken) -> Result<()> {
        let value = c_string(&token.token);
        let raw = std::mem::ManuallyDrop::new(self).raw;
        match value {
            Ok(value) => check(unsafe { sys::fbs_app_check_request_complete(raw, value.as_ptr(), millis(token.expire_time)) }),
            Err(e) => {
                unsafe { sys::fbs_app_check_request_fail(raw, c"the token holds a NUL character".as_ptr()) };
                Err(e)
            }
        }
    }

    /// Fails the waiting request with [`ErrorCode::AppCheckProviderFailed`] and this message.
    pub fn fail(self, message: &str) {
        let message = c_string(message).ok();
        let raw = std::mem::ManuallyDrop::new(self).raw;
        unsafe { sys::fbs_app_check_request_fail(raw, ptr(&message)) };
    }
}

impl Drop for AppCheckRequest {
    fn drop(&mut self) {
        unsafe { sys::fbs_app_check_request_fail(self.raw, c"the provider dropped the request unanswered".as_ptr()) };
    }
}

type Provider = dyn FnMut(AppCheckRequest) + Send;
static PROVIDERS: Registry<Provider> = Registry::new();

unsafe extern "C" fn ask_provider(limited_use: c_int, request: *mut sys::fbs_app_check_request, key: *mut c_void) {
    let mut request = Some(AppCheckRequest { raw: request, limited_use: limited_use != 0 });
    PROVIDERS.call(key, |provider| provider(request.take().expect("called once")));
    // A removed provider, or one that panicked before taking it: the request fails on drop.
    drop(request);
}

unsafe extern "C" fn release_provider(key: *mut c_void) {
    PROVIDERS.remove(key as u64);
}

type TokenListener = dyn FnMut(&AppCheckToken) + Send;
static TOKEN_LISTENERS: Registry<TokenListener> = Registry::new();

unsafe extern "C" fn on_token(token: *const c_char, expire_time_ms: i64, key: *mut c_void) {
    let token = AppCheckToken {
        token: unsafe { borrowed(token) }.unwrap_or_default(),
        expire_time: time(expire_time_ms).unwrap_or(UNIX_EPOCH),
    };
    TOKEN_LISTENERS.call(key, |listener| listener(&token));
}

unsafe extern "C" fn release_token_listener(key: *mut c_void) {
    TOKEN_LISTENERS.remove(key as u64);
}

/// Identifies a token listener for [`AppCheck::remove_token_listener`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TokenListenerHandle(sys::fbs_listener_handle);

/// Firebase App Check for one app (project id, app id), usable by any number of storages: it
/// gets tokens from its provider and keeps one fresh. `Send + Sync`. With
/// FIREBASE_APP_CHECK_EMULATOR_HOST set when it is created, the token exchange goes to that emulator.
///
/// ```
/// use fbstorage::{AppCheck, Storage};
/// # assert!(std::env::var_os("FIREBASE_STORAGE_EMULATOR_HOST").is_some(), "doctests talk to an emulator: run them with `make test-rust` or under Tests/c/with-emulator.sh");
/// let app_check = AppCheck::new("demo-project", "1:1234:web:abcd", None)?;
/// app_check.set_debug_provider(Some("a-debug-token-registered-in-the-console"))?;
/// let storage = Storage::new("docs-bucket")?;
/// storage.use_app_check(Some(&app_check))?; // every request now carries an App Check token
/// # Ok::<(), fbstorage::StorageError>(())
/// ```
pub struct AppCheck {
    raw: NonNull<sys::fbs_app_check>,
}

// SAFETY: thread-safe handle (header); freed only by Drop.
unsafe impl Send for AppCheck {}
unsafe impl Sync for AppCheck {}

impl std::fmt::Debug for AppCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppCheck").finish_non_exhaustive()
    }
}

impl AppCheck {
    /// An App Check for app `app_id` ("1:1234:web:abcd") of `project_id`, with no provider yet.
    /// `api_key` goes with the token exchange; production needs it.
    pub fn new(project_id: &str, app_id: &str, api_key: Option<&str>) -> Result<AppCheck> {
        let (project_id, app_id, api_key) = (c_string(project_id)?, c_string(app_id)?, c_string_opt(api_key)?);
        let mut raw = std::ptr::null_mut();
        check(unsafe { sys::fbs_app_check_new(project_id.as_ptr(), app_id.as_ptr(), ptr(&api_key), &mut raw) })?;
        let raw = NonNull::new(raw).ok_or_else(|| StorageError::new(ErrorCode::Internal, "NULL App Check"))?;
        Ok(AppCheck { raw })
    }

    fn raw(&self) -> *mut sys::fbs_app_check {
        self.raw.as_ptr()
    }

    /// Sends the token exchange to an emulator at http://host:port.
    pub fn use_emulator(&self, host: &str, port: u16) -> Result<()> {
        let host = c_string(host)?;
        check(unsafe { sys::fbs_app_check_use_emulator(self.raw(), host.as_ptr(), port.into()) })
    }

    /// Renews the kept token in the background before requests need it, as the SDKs' token
    /// refreshers do: halfway through each kept token's life, and after a failed renewal again
    /// with backoff (1 s, doubling, at most 5 minutes); token listeners hear of each. Off by
    /// default: a token is then renewed when a request needs one. The first token is always
    /// asked for by a request; a token given with `set_token` is never refreshed.
    pub fn set_token_auto_refresh_enabled(&self, enabled: bool) -> Result<()> {
        check(unsafe { sys::fbs_app_check_set_token_auto_refresh_enabled(self.raw(), enabled.into()) })
    }

    /// Whether auto-refresh is on (see [`AppCheck::set_token_auto_refresh_enabled`]).
    pub fn is_token_auto_refresh_enabled(&self) -> bool {
        unsafe { sys::fbs_app_check_is_token_auto_refresh_enabled(self.raw()) == 1 }
    }

    /// The debug provider: exchanges `debug_token` (registered in the Firebase console, or with
    /// the emulator's --app-check-debug-token) for tokens; None reads it from the environment
    /// (FIREBASE_APP_CHECK_DEBUG_TOKEN, FIRAAppCheckDebugToken, AppCheckDebugToken). For CI and
    /// development only.
    pub fn set_debug_provider(&self, debug_token: Option<&str>) -> Result<()> {
        let token = c_string_opt(debug_token)?;
        check(unsafe { sys::fbs_app_check_set_debug_provider(self.raw(), ptr(&token)) })
    }

    /// A custom provider: called on the App Check's callback thread whenever a token is needed;
    /// it answers the request at once or later, from any thread (typically after asking your
    /// backend, which attests the device and mints the token).
    pub fn set_custom_provider(&self, provider: impl FnMut(AppCheckRequest) + Send + 'static) -> Result<()> {
        let key = PROVIDERS.insert(Box::new(provider)); // removed by release_provider, even on failure
        check(unsafe {
            sys::fbs_app_check_set_custom_provider_full(self.raw(), Some(ask_provider), user_data(key), Some(release_provider))
        })
    }

    /// Removes the provider: storages send no token until another is set.
    pub fn remove_provider(&self) -> Result<()> {
        check(unsafe { sys::fbs_app_check_set_custom_provider(self.raw(), None, std::ptr::null_mut()) })
    }

    /// A token minted elsewhere, used until `expire_time`; then requests fail until a new one is set.
    pub fn set_token(&self, token: &AppCheckToken) -> Result<()> {
        let value = c_string(&token.token)?;
        check(unsafe { sys::fbs_app_check_set_token(self.raw(), value.as_ptr(), millis(token.expire_time)) })
    }

    /// Runs `listener` (on the App Check's callback thread) with every token the App Check
    /// keeps: each renewal's and each token set with [`AppCheck::set_token`], never a limited-use
    /// token; and once at once when a fresh token is kept already. Dropping the App Check removes it.
    pub fn add_token_listener(&self, listener: impl FnMut(&AppCheckToken) + Send + 'static) -> Result<TokenListenerHandle> {
        let key = TOKEN_LISTENERS.insert(Box::new(listener)); // removed by release_token_listener, even on failure
        let mut raw = 0;
        check(unsafe {
            sys::fbs_app_check_add_token_listener(self.raw(), Some(on_token), user_data(key), Some(release_token_listener), &mut raw)
        })?;
        Ok(TokenListenerHandle(raw))
    }

    /// The listener is not called again once this returns (unless called from a listener: then
    /// after the running call); its closure is dropped.
    pub fn remove_token_listener(&self, handle: TokenListenerHandle) -> Result<()> {
        check(unsafe { sys::fbs_app_check_remove_token_listener(self.raw(), handle.0) })
    }

    fn take(call: impl FnOnce(*mut *mut std::os::raw::c_char, *mut i64) -> c_int) -> Result<AppCheckToken> {
        let (mut out, mut expire_ms) = (std::ptr::null_mut(), 0);
        check(call(&mut out, &mut expire_ms))?;
        let token = unsafe { owned(out) }.unwrap_or_default();
        Ok(AppCheckToken { token, expire_time: time(expire_ms).unwrap_or(UNIX_EPOCH) })
    }

    /// The current token, renewed first when about to expire or when `force_refresh` (blocks
    /// until the provider answers).
    pub fn token(&self, force_refresh: bool) -> Result<AppCheckToken> {
        Self::take(|out, expire| unsafe { sys::fbs_app_check_get_token(self.raw(), force_refresh.into(), out, expire) })
    }

    /// A new limited-use token, for one replay-protected call of your own backend.
    pub fn limited_use_token(&self) -> Result<AppCheckToken> {
        Self::take(|out, expire| unsafe { sys::fbs_app_check_get_limited_use_token(self.raw(), out, expire) })
    }
}

impl Drop for AppCheck {
    fn drop(&mut self) {
        unsafe { sys::fbs_app_check_free(self.raw()) };
    }
}

impl Storage {
    /// Every request of this storage, running tasks included, carries a token of `app_check`
    /// (none while it has no provider). The storage keeps it alive. None detaches.
    pub fn use_app_check(&self, app_check: Option<&AppCheck>) -> Result<()> {
        let app_check = app_check.map_or(std::ptr::null_mut(), AppCheck::raw);
        check(unsafe { sys::fbs_storage_use_app_check(self.raw(), app_check) })
    }
}
