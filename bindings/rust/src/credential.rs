//! [`Credential`]: what a user proves who they are with, for [`Auth::sign_in_with_credential`],
//! [`Auth::link_with_credential`] and [`Auth::reauthenticate`].
//!
//! [`Auth::sign_in_with_credential`]: crate::Auth::sign_in_with_credential
//! [`Auth::link_with_credential`]: crate::Auth::link_with_credential
//! [`Auth::reauthenticate`]: crate::Auth::reauthenticate
use std::ptr::NonNull;

use crate::error::{check, ErrorCode, Result, StorageError};
use crate::strings::{c_string, c_string_opt, ptr};
use crate::sys;

/// An email and password, or an identity provider's ID token and/or access token. Immutable,
/// `Send + Sync`; `Debug` never shows its secrets (they stay in the library).
pub struct Credential {
    raw: NonNull<sys::fbs_credential>,
    provider_id: String,
}

// SAFETY: immutable, usable from any thread (header); freed only by Drop.
unsafe impl Send for Credential {}
unsafe impl Sync for Credential {}

impl Credential {
    /// An email and password (the "password" provider). Errors: InvalidArgument (empty).
    pub fn email(email: &str, password: &str) -> Result<Credential> {
        let (email, password) = (c_string(email)?, c_string(password)?);
        Credential::make("password", |out| unsafe { sys::fbs_credential_email(email.as_ptr(), password.as_ptr(), out) })
    }

    /// An identity provider's credential ("google.com", "apple.com", "github.com", …) with its
    /// ID token, its access token, or both. Errors: InvalidArgument (no token, "password").
    pub fn idp(provider_id: &str, id_token: Option<&str>, access_token: Option<&str>) -> Result<Credential> {
        let (provider, id_token, access_token) = (c_string(provider_id)?, c_string_opt(id_token)?, c_string_opt(access_token)?);
        Credential::make(provider_id, |out| unsafe {
            sys::fbs_credential_idp(provider.as_ptr(), ptr(&id_token), ptr(&access_token), out)
        })
    }

    /// As [`Credential::idp`], with the raw nonce the ID token was made for (Sign in with Apple)
    /// and an OAuth 1.0 token secret for the access token (Twitter). Errors: InvalidArgument (as
    /// `idp`; a nonce without an ID token, a secret without an access token).
    pub fn oauth(provider_id: &str, id_token: Option<&str>, raw_nonce: Option<&str>, access_token: Option<&str>,
                 secret: Option<&str>) -> Result<Credential> {
        let provider = c_string(provider_id)?;
        let (id_token, raw_nonce) = (c_string_opt(id_token)?, c_string_opt(raw_nonce)?);
        let (access_token, secret) = (c_string_opt(access_token)?, c_string_opt(secret)?);
        Credential::make(provider_id, |out| unsafe {
            sys::fbs_credential_oauth(provider.as_ptr(), ptr(&id_token), ptr(&raw_nonce), ptr(&access_token), ptr(&secret), out)
        })
    }

    /// A Twitter OAuth 1.0 token and its secret ("twitter.com").
    pub fn twitter(token: &str, secret: &str) -> Result<Credential> {
        Credential::oauth("twitter.com", None, None, Some(token), Some(secret))
    }

    /// A Google Sign-In ID token and/or access token ("google.com").
    pub fn google(id_token: Option<&str>, access_token: Option<&str>) -> Result<Credential> {
        Credential::idp("google.com", id_token, access_token)
    }

    fn make(provider_id: &str, call: impl FnOnce(*mut *mut sys::fbs_credential) -> i32) -> Result<Credential> {
        let mut raw = std::ptr::null_mut();
        check(call(&mut raw))?;
        let raw = NonNull::new(raw).ok_or_else(|| StorageError::new(ErrorCode::Internal, "NULL credential"))?;
        Ok(Credential { raw, provider_id: provider_id.to_owned() })
    }

    /// "password", "google.com", …
    pub fn provider_id(&self) -> &str {
        &self.provider_id
    }

    pub(crate) fn raw(&self) -> *const sys::fbs_credential {
        self.raw.as_ptr()
    }
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credential").field("provider_id", &self.provider_id).finish_non_exhaustive()
    }
}

impl Drop for Credential {
    fn drop(&mut self) {
        unsafe { sys::fbs_credential_free(self.raw.as_ptr()) };
    }
}
