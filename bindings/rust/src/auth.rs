//! Firebase Auth: [`Auth`] signs a user in; [`Storage::use_auth`] makes a storage send that user's ID token.
use std::os::raw::c_void;
use std::path::Path;
use std::ptr::NonNull;
use std::sync::Mutex;
use std::time::SystemTime;

use crate::credential::Credential;
use crate::error::{check, ErrorCode, Result, StorageError};
use crate::metadata::time;
use crate::registry::{lock, user_data, Registry};
use crate::storage::Storage;
use crate::strings::{borrowed, c_path, c_string, c_string_opt, owned, ptr};
use crate::sys;
use crate::user_info::{provider_data, UserInfo};

/// A signed-in user at one moment: profile and tokens. `Debug` never shows the tokens.
#[derive(Clone, PartialEq, Eq)]
pub struct User {
    pub uid: String,
    pub email: Option<String>,
    pub display_name: Option<String>,
    pub photo_url: Option<String>,
    pub is_anonymous: bool,
    /// As of the ID token, or the last [`Auth::reload`] or account change.
    pub is_email_verified: bool,
    /// "anonymous", "password", "custom", …
    pub sign_in_provider: Option<String>,
    /// A credential: never log it.
    pub id_token: String,
    /// A credential: never log it. Restores the session with [`Auth::sign_in_with_refresh_token`].
    pub refresh_token: String,
    /// The ID token's payload (custom claims included), as JSON.
    pub claims_json: String,
    pub token_expiration: Option<SystemTime>,
    pub token_issued_at: Option<SystemTime>,
    pub auth_time: Option<SystemTime>,
    /// The account's sign-in methods and dates, as of the sign-in (which reads the account),
    /// the last [`Auth::reload`] or account change.
    pub provider_data: Vec<UserInfo>,
    pub creation_time: Option<SystemTime>,
    pub last_sign_in_time: Option<SystemTime>,
    /// What the sign-in, reauthentication or provider's link that answered this user said beyond
    /// it; `None` on any other user.
    pub additional_user_info: Option<AdditionalUserInfo>,
}

/// What a sign-in's answer says beyond the user (the SDKs' `AdditionalUserInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdditionalUserInfo {
    pub provider_id: Option<String>,
    /// The sign-in made the account.
    pub is_new_user: bool,
    /// The identity provider's profile of the user, a JSON object; `None` without a provider.
    pub profile_json: Option<String>,
    /// The user's name at the provider (screenName).
    pub username: Option<String>,
}

impl User {
    unsafe fn copy_from(u: *const sys::fbs_user) -> User {
        unsafe {
            User {
                uid: borrowed(sys::fbs_user_uid(u)).unwrap_or_default(),
                email: borrowed(sys::fbs_user_email(u)),
                display_name: borrowed(sys::fbs_user_display_name(u)),
                photo_url: borrowed(sys::fbs_user_photo_url(u)),
                is_anonymous: sys::fbs_user_is_anonymous(u) == 1,
                is_email_verified: sys::fbs_user_is_email_verified(u) == 1,
                sign_in_provider: borrowed(sys::fbs_user_sign_in_provider(u)),
                id_token: borrowed(sys::fbs_user_id_token(u)).unwrap_or_default(),
                refresh_token: borrowed(sys::fbs_user_refresh_token(u)).unwrap_or_default(),
                claims_json: borrowed(sys::fbs_user_claims_json(u)).unwrap_or_default(),
                token_expiration: time(sys::fbs_user_token_expiration(u)),
                token_issued_at: time(sys::fbs_user_token_issued_at(u)),
                auth_time: time(sys::fbs_user_auth_time(u)),
                provider_data: provider_data(u),
                creation_time: time(sys::fbs_user_creation_time(u)),
                last_sign_in_time: time(sys::fbs_user_last_sign_in_time(u)),
                additional_user_info: match sys::fbs_user_is_new_user(u) {
                    answer if answer < 0 => None,
                    answer => Some(AdditionalUserInfo {
                        provider_id: borrowed(sys::fbs_user_additional_provider_id(u)),
                        is_new_user: answer == 1,
                        profile_json: borrowed(sys::fbs_user_additional_profile_json(u)),
                        username: borrowed(sys::fbs_user_additional_username(u)),
                    }),
                },
            }
        }
    }

    unsafe fn take(u: *mut sys::fbs_user) -> Option<User> {
        let user = (!u.is_null()).then(|| unsafe { User::copy_from(u) });
        unsafe { sys::fbs_user_free(u) };
        user
    }
}

impl std::fmt::Debug for User {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("User")
            .field("uid", &self.uid)
            .field("email", &self.email)
            .field("is_anonymous", &self.is_anonymous)
            .field("is_email_verified", &self.is_email_verified)
            .field("sign_in_provider", &self.sign_in_provider)
            .finish_non_exhaustive()
    }
}

type Listener = dyn FnMut(Option<&User>) + Send;
static LISTENERS: Registry<Listener> = Registry::new();

unsafe extern "C" fn on_auth_change(user: *const sys::fbs_user, key: *mut c_void) {
    let user = (!user.is_null()).then(|| unsafe { User::copy_from(user) });
    LISTENERS.call(key, |listener| listener(user.as_ref()));
}

/// Identifies a listener for [`Auth::remove_listener`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ListenerHandle {
    key: u64,
    raw: sys::fbs_listener_handle,
}

/// Firebase Auth for one app (Web API key, project id), usable by any number of storages.
/// It keeps the user's ID token fresh. `Send + Sync`. With FIREBASE_AUTH_EMULATOR_HOST set
/// when it is created, it talks to that emulator.
///
/// ```
/// use fbstorage::{Auth, Storage};
/// // FIREBASE_AUTH_EMULATOR_HOST=host:port sends sign-ins to that emulator.
/// # assert!(std::env::var_os("FIREBASE_STORAGE_EMULATOR_HOST").is_some(), "doctests talk to an emulator: run them with `make test-rust` or under Tests/c/with-emulator.sh");
/// let auth = Auth::new("demo-api-key", Some("demo-project"))?;
/// let user = auth.sign_in_anonymously()?;
/// assert!(user.is_anonymous);
/// let storage = Storage::new("docs-bucket")?;
/// storage.use_auth(Some(&auth))?; // every request now carries the user's ID token
/// let note = storage.reference(&format!("users/{}/note.txt", user.uid))?;
/// note.put_data(b"signed in", None)?.wait()?;
/// auth.sign_out()?;
/// assert_eq!(auth.current_user()?, None);
/// # Ok::<(), fbstorage::StorageError>(())
/// ```
pub struct Auth {
    raw: NonNull<sys::fbs_auth>,
    listeners: Mutex<Vec<u64>>,
}

// SAFETY: thread-safe handle (header); freed only by Drop.
unsafe impl Send for Auth {}
unsafe impl Sync for Auth {}

impl Auth {
    pub fn new(api_key: &str, project_id: Option<&str>) -> Result<Auth> {
        let (api_key, project_id) = (c_string(api_key)?, c_string_opt(project_id)?);
        let mut raw = std::ptr::null_mut();
        check(unsafe { sys::fbs_auth_new(api_key.as_ptr(), ptr(&project_id), &mut raw) })?;
        let raw = NonNull::new(raw).ok_or_else(|| StorageError::new(ErrorCode::Internal, "NULL auth"))?;
        Ok(Auth { raw, listeners: Mutex::default() })
    }

    pub(crate) fn raw(&self) -> *mut sys::fbs_auth {
        self.raw.as_ptr()
    }

    /// Sends Auth requests to an Auth emulator at http://host:port.
    pub fn use_emulator(&self, host: &str, port: u16) -> Result<()> {
        let host = c_string(host)?;
        check(unsafe { sys::fbs_auth_use_emulator(self.raw(), host.as_ptr(), port.into()) })
    }

    /// Keeps the signed-in user in `path` (mode 0600); a user already in it becomes the current
    /// user at once. None stops persisting.
    pub fn set_persistence_file(&self, path: Option<&Path>) -> Result<()> {
        let path = path.map(c_path).transpose()?;
        check(unsafe { sys::fbs_auth_set_persistence_file(self.raw(), ptr(&path)) })
    }

    /// Keeps the signed-in user between runs in the user's configuration folder, as the SDKs
    /// keep it in the keychain: `set_persistence_file` on
    /// `$XDG_CONFIG_HOME/<program>/<app_name>-<API key hash>.json` (`~/.config` without
    /// XDG_CONFIG_HOME; missing folders made with mode 0700). `program` is one path component.
    pub fn set_persistence_for_app(&self, program: &str, app_name: &str) -> Result<()> {
        let (program, app_name) = (c_string(program)?, c_string(app_name)?);
        check(unsafe { sys::fbs_auth_set_persistence_for_app(self.raw(), program.as_ptr(), app_name.as_ptr()) })
    }

    pub(crate) fn sign_in(&self, call: impl FnOnce(*mut *mut sys::fbs_user) -> i32) -> Result<User> {
        let mut out = std::ptr::null_mut();
        check(call(&mut out))?;
        unsafe { User::take(out) }.ok_or_else(|| StorageError::new(ErrorCode::Internal, "signed in without a user"))
    }

    pub fn sign_in_anonymously(&self) -> Result<User> {
        self.sign_in(|out| unsafe { sys::fbs_auth_sign_in_anonymously(self.raw(), out) })
    }

    /// Creates an email/password account and signs in as it.
    pub fn create_user(&self, email: &str, password: &str) -> Result<User> {
        let (email, password) = (c_string(email)?, c_string(password)?);
        self.sign_in(|out| unsafe { sys::fbs_auth_create_user(self.raw(), email.as_ptr(), password.as_ptr(), out) })
    }

    pub fn sign_in_with_email(&self, email: &str, password: &str) -> Result<User> {
        let (email, password) = (c_string(email)?, c_string(password)?);
        self.sign_in(|out| unsafe { sys::fbs_auth_sign_in_with_email(self.raw(), email.as_ptr(), password.as_ptr(), out) })
    }

    /// Signs in with a custom token minted by a backend.
    pub fn sign_in_with_custom_token(&self, token: &str) -> Result<User> {
        let token = c_string(token)?;
        self.sign_in(|out| unsafe { sys::fbs_auth_sign_in_with_custom_token(self.raw(), token.as_ptr(), out) })
    }

    /// Restores a session from a refresh token saved earlier, e.g. by another process.
    pub fn sign_in_with_refresh_token(&self, refresh_token: &str) -> Result<User> {
        let token = c_string(refresh_token)?;
        self.sign_in(|out| unsafe { sys::fbs_auth_sign_in_with_refresh_token(self.raw(), token.as_ptr(), out) })
    }

    /// Forgets the current user (nothing is sent).
    pub fn sign_out(&self) -> Result<()> {
        check(unsafe { sys::fbs_auth_sign_out(self.raw()) })
    }

    /// Deletes the current user's account, then signs out.
    pub fn delete_user(&self) -> Result<()> {
        check(unsafe { sys::fbs_auth_delete_user(self.raw()) })
    }

    /// Signs in with a credential (an identity provider's user gets an account the first time).
    /// Errors: AuthWrongPassword, AuthUserNotFound, AuthInvalidCredential,
    /// AuthAccountExistsWithDifferentCredential (sign in to that account, then link).
    pub fn sign_in_with_credential(&self, credential: &Credential) -> Result<User> {
        self.sign_in(|out| unsafe { sys::fbs_auth_sign_in_with_credential(self.raw(), credential.raw(), out) })
    }

    /// Adds the credential's sign-in method to the current user, who keeps the uid (an
    /// anonymous user becomes permanent). Errors: AuthProviderAlreadyLinked,
    /// AuthCredentialAlreadyInUse, AuthEmailAlreadyInUse, AuthWeakPassword, AuthInvalidCredential.
    pub fn link_with_credential(&self, credential: &Credential) -> Result<User> {
        self.sign_in(|out| unsafe { sys::fbs_auth_link_with_credential(self.raw(), credential.raw(), out) })
    }

    /// Signs the current user in again (a recent sign-in for the calls that need one).
    /// Errors: AuthUserMismatch (another user's credential: the user stays), and sign-in's.
    pub fn reauthenticate(&self, credential: &Credential) -> Result<User> {
        self.sign_in(|out| unsafe { sys::fbs_auth_reauthenticate(self.raw(), credential.raw(), out) })
    }

    /// Removes a sign-in method ("password", "google.com", …) from the current user.
    pub fn unlink(&self, provider_id: &str) -> Result<User> {
        let provider_id = c_string(provider_id)?;
        self.sign_in(|out| unsafe { sys::fbs_auth_unlink(self.raw(), provider_id.as_ptr(), out) })
    }

    /// Changes the current user's email at once ([`Auth::verify_before_update_email`] asks the
    /// new address first). Errors: AuthRequiresRecentLogin, AuthEmailAlreadyInUse, AuthInvalidEmail.
    pub fn update_email(&self, email: &str) -> Result<User> {
        let email = c_string(email)?;
        self.sign_in(|out| unsafe { sys::fbs_auth_update_email(self.raw(), email.as_ptr(), out) })
    }

    /// Errors: AuthRequiresRecentLogin, AuthWeakPassword.
    pub fn update_password(&self, password: &str) -> Result<User> {
        let password = c_string(password)?;
        self.sign_in(|out| unsafe { sys::fbs_auth_update_password(self.raw(), password.as_ptr(), out) })
    }

    /// Reads the account again and refreshes the ID token: `is_email_verified` and the token's
    /// claims (which storage rules see) as the server has them now.
    pub fn reload(&self) -> Result<User> {
        self.sign_in(|out| unsafe { sys::fbs_auth_reload(self.raw(), out) })
    }

    /// Mails a code verifying the current user's email (an Auth emulator lists it at
    /// GET /emulator/v1/projects/{project}/oobCodes); apply it with [`Auth::apply_action_code`].
    pub fn send_email_verification(&self) -> Result<()> {
        check(unsafe { sys::fbs_auth_send_email_verification(self.raw()) })
    }

    /// Mails `email` a code that, applied, makes it the current user's email.
    pub fn verify_before_update_email(&self, email: &str) -> Result<()> {
        let email = c_string(email)?;
        check(unsafe { sys::fbs_auth_verify_before_update_email(self.raw(), email.as_ptr()) })
    }

    /// Mails a password-reset code for the account of `email` (nobody needs to be signed in).
    /// Errors: AuthUserNotFound, AuthInvalidEmail.
    pub fn send_password_reset_email(&self, email: &str) -> Result<()> {
        let email = c_string(email)?;
        check(unsafe { sys::fbs_auth_send_password_reset_email(self.raw(), email.as_ptr()) })
    }

    /// The email a password-reset code is for; the code stays usable.
    /// Errors: AuthInvalidActionCode, AuthExpiredActionCode.
    pub fn verify_password_reset_code(&self, code: &str) -> Result<String> {
        let code = c_string(code)?;
        let mut out = std::ptr::null_mut();
        check(unsafe { sys::fbs_auth_verify_password_reset_code(self.raw(), code.as_ptr(), &mut out) })?;
        Ok(unsafe { owned(out) }.unwrap_or_default())
    }

    /// How `email` can sign in: "password", "emailLink" and the identity providers linked to its
    /// account; none when no account has it, and always when the project protects against email
    /// enumeration (the default for new projects). Errors: InvalidArgument (empty),
    /// AuthInvalidEmail.
    pub fn fetch_sign_in_methods(&self, email: &str) -> Result<Vec<String>> {
        let email = c_string(email)?;
        let mut out = std::ptr::null_mut();
        check(unsafe { sys::fbs_auth_fetch_sign_in_methods(self.raw(), email.as_ptr(), &mut out) })?;
        let joined = unsafe { owned(out) }.unwrap_or_default();
        Ok(joined.split(',').filter(|method| !method.is_empty()).map(str::to_owned).collect())
    }

    /// Sets the password of a reset code's account and uses the code up (its sessions end).
    /// Errors: as [`Auth::verify_password_reset_code`], AuthWeakPassword.
    pub fn confirm_password_reset(&self, code: &str, new_password: &str) -> Result<()> {
        let (code, new_password) = (c_string(code)?, c_string(new_password)?);
        check(unsafe { sys::fbs_auth_confirm_password_reset(self.raw(), code.as_ptr(), new_password.as_ptr()) })
    }

    /// Applies an email verification or email change code; the current user shows it after
    /// [`Auth::reload`]. Errors: AuthInvalidActionCode, AuthExpiredActionCode.
    pub fn apply_action_code(&self, code: &str) -> Result<()> {
        let code = c_string(code)?;
        check(unsafe { sys::fbs_auth_apply_action_code(self.raw(), code.as_ptr()) })
    }

    /// The current user; None when signed out.
    pub fn current_user(&self) -> Result<Option<User>> {
        let mut out = std::ptr::null_mut();
        check(unsafe { sys::fbs_auth_current_user(self.raw(), &mut out) })?;
        Ok(unsafe { User::take(out) })
    }

    /// The current user's ID token, refreshed first when about to expire or when `force_refresh`.
    pub fn id_token(&self, force_refresh: bool) -> Result<String> {
        let mut out = std::ptr::null_mut();
        check(unsafe { sys::fbs_auth_get_id_token(self.raw(), force_refresh.into(), &mut out) })?;
        Ok(unsafe { owned(out) }.unwrap_or_default())
    }

    fn add_listener(
        &self,
        add: unsafe extern "C" fn(*mut sys::fbs_auth, sys::fbs_auth_listener, *mut c_void, *mut sys::fbs_listener_handle) -> i32,
        listener: Box<Listener>,
    ) -> Result<ListenerHandle> {
        let key = LISTENERS.insert(listener);
        let mut raw = 0;
        if let Err(error) = check(unsafe { add(self.raw(), Some(on_auth_change), user_data(key), &mut raw) }) {
            LISTENERS.remove(key);
            return Err(error);
        }
        lock(&self.listeners).push(key);
        Ok(ListenerHandle { key, raw })
    }

    /// Runs `listener` (on the auth's callback thread) at once with the current user, then on
    /// sign-in, sign-out and a change of user.
    pub fn add_state_listener(&self, listener: impl FnMut(Option<&User>) + Send + 'static) -> Result<ListenerHandle> {
        self.add_listener(sys::fbs_auth_add_state_listener, Box::new(listener))
    }

    /// As a state listener, and also on every new ID token.
    pub fn add_id_token_listener(&self, listener: impl FnMut(Option<&User>) + Send + 'static) -> Result<ListenerHandle> {
        self.add_listener(sys::fbs_auth_add_id_token_listener, Box::new(listener))
    }

    /// The listener is not called again; its closure is dropped.
    pub fn remove_listener(&self, handle: ListenerHandle) -> Result<()> {
        let result = check(unsafe { sys::fbs_auth_remove_listener(self.raw(), handle.raw) });
        lock(&self.listeners).retain(|&key| key != handle.key);
        LISTENERS.remove(handle.key);
        result
    }
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Auth").finish_non_exhaustive()
    }
}

impl Drop for Auth {
    fn drop(&mut self) {
        unsafe { sys::fbs_auth_free(self.raw()) };
        // A storage still using the auth may still trigger listeners: they now find nothing.
        for key in lock(&self.listeners).drain(..) {
            LISTENERS.remove(key);
        }
    }
}

impl Storage {
    /// Every request of this storage, running tasks included, carries the current user of
    /// `auth` (refreshed as needed). The storage keeps the auth alive. None detaches.
    pub fn use_auth(&self, auth: Option<&Auth>) -> Result<()> {
        let auth = auth.map_or(std::ptr::null_mut(), Auth::raw);
        check(unsafe { sys::fbs_storage_use_auth(self.raw(), auth) })
    }
}
