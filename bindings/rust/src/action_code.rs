//! Email actions beyond the account calls: email-link sign-in with [`ActionCodeSettings`], and
//! [`Auth::check_action_code`] telling what a mailed code is for ([`ActionCodeInfo`]).
use std::ptr::NonNull;

use crate::auth::{Auth, User};
use crate::error::{check, ErrorCode, Result, StorageError};
use crate::strings::{c_string, c_string_opt, owned, ptr};
use crate::sys;

/// Where the link in an Auth email leads and which app may open it (the SDKs'
/// ActionCodeSettings): the continue URL (absolute, its domain authorized for the project) and
/// whether the app completes the action itself (`handle_code_in_app`: required for sign-in links).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActionCodeSettings {
    pub url: String,
    pub handle_code_in_app: bool,
    pub ios_bundle_id: Option<String>,
    pub android_package_name: Option<String>,
    pub android_install_app: bool,
    pub android_minimum_version: Option<String>,
    pub link_domain: Option<String>,
}

/// What an email action code is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionCodeInfo {
    /// "PASSWORD_RESET", "VERIFY_EMAIL", "EMAIL_SIGNIN", "VERIFY_AND_CHANGE_EMAIL", "RECOVER_EMAIL", …
    pub operation: String,
    /// The address the code was sent to (None for a sign-in code, which does not reveal it).
    pub email: Option<String>,
    /// The address an email change code makes the account's.
    pub new_email: Option<String>,
}

/// The library's copy of the settings, for one call.
struct NativeSettings(NonNull<sys::fbs_action_code_settings>);

impl NativeSettings {
    fn new(settings: &ActionCodeSettings) -> Result<NativeSettings> {
        let url = c_string(&settings.url)?;
        let mut raw = std::ptr::null_mut();
        check(unsafe { sys::fbs_action_code_settings_new(url.as_ptr(), settings.handle_code_in_app.into(), &mut raw) })?;
        let native = NativeSettings(NonNull::new(raw).ok_or_else(|| StorageError::new(ErrorCode::Internal, "NULL settings"))?);
        let raw = native.0.as_ptr();
        let bundle_id = c_string_opt(settings.ios_bundle_id.as_deref())?;
        check(unsafe { sys::fbs_action_code_settings_set_ios_bundle_id(raw, ptr(&bundle_id)) })?;
        let package = c_string_opt(settings.android_package_name.as_deref())?;
        let minimum_version = c_string_opt(settings.android_minimum_version.as_deref())?;
        check(unsafe {
            sys::fbs_action_code_settings_set_android_package_name(raw, ptr(&package), settings.android_install_app.into(),
                                                                   ptr(&minimum_version))
        })?;
        let domain = c_string_opt(settings.link_domain.as_deref())?;
        check(unsafe { sys::fbs_action_code_settings_set_link_domain(raw, ptr(&domain)) })?;
        Ok(native)
    }
}

impl Drop for NativeSettings {
    fn drop(&mut self) {
        unsafe { sys::fbs_action_code_settings_free(self.0.as_ptr()) };
    }
}

impl Auth {
    /// Mails `email` a sign-in link (an Auth emulator lists it at
    /// GET /emulator/v1/projects/{project}/oobCodes) leading to `settings.url`, which must have
    /// `handle_code_in_app`. Errors: AuthInvalidEmail; InvalidArgument (settings the server refuses).
    pub fn send_sign_in_link_to_email(&self, email: &str, settings: &ActionCodeSettings) -> Result<()> {
        let email = c_string(email)?;
        let settings = NativeSettings::new(settings)?;
        check(unsafe { sys::fbs_auth_send_sign_in_link_to_email(self.raw(), email.as_ptr(), settings.0.as_ptr()) })
    }

    /// Whether `link` is an email sign-in link (also inside a Dynamic Link); no request is sent.
    pub fn is_sign_in_with_email_link(&self, link: &str) -> Result<bool> {
        let link = c_string(link)?;
        match unsafe { sys::fbs_auth_is_sign_in_with_email_link(self.raw(), link.as_ptr()) } {
            -1 => Err(StorageError::last(ErrorCode::InvalidArgument.raw())),
            answer => Ok(answer == 1),
        }
    }

    /// Signs in as the owner of `email` with the link mailed to it (a new account the first
    /// time, its email verified). Errors: AuthInvalidActionCode (used or unknown),
    /// AuthExpiredActionCode, AuthInvalidEmail (another address than the link's); InvalidArgument
    /// for a link that is not a sign-in link.
    pub fn sign_in_with_email_link(&self, email: &str, link: &str) -> Result<User> {
        let (email, link) = (c_string(email)?, c_string(link)?);
        self.sign_in(|out| unsafe { sys::fbs_auth_sign_in_with_email_link(self.raw(), email.as_ptr(), link.as_ptr(), out) })
    }

    /// What an action code is for; the code stays usable.
    /// Errors: AuthInvalidActionCode, AuthExpiredActionCode.
    pub fn check_action_code(&self, code: &str) -> Result<ActionCodeInfo> {
        let code = c_string(code)?;
        let (mut operation, mut email, mut new_email) = (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut());
        check(unsafe { sys::fbs_auth_check_action_code(self.raw(), code.as_ptr(), &mut operation, &mut email, &mut new_email) })?;
        Ok(unsafe {
            ActionCodeInfo { operation: owned(operation).unwrap_or_default(), email: owned(email), new_email: owned(new_email) }
        })
    }
}
