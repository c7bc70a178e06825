//! [`UserInfo`]: one sign-in method of a [`User`](crate::User)'s account (the SDKs' providerData).
use crate::strings::borrowed;
use crate::sys;

/// One sign-in method of an account: `provider_id` ("password", "google.com", …) and the user's
/// id at that provider (`uid`; the email for "password"), with what the provider told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserInfo {
    pub provider_id: String,
    pub uid: String,
    pub email: Option<String>,
    pub display_name: Option<String>,
    pub photo_url: Option<String>,
    pub phone_number: Option<String>,
}

/// The sign-in methods of a user snapshot (borrowed for the call).
pub(crate) unsafe fn provider_data(u: *const sys::fbs_user) -> Vec<UserInfo> {
    unsafe {
        (0..sys::fbs_user_provider_count(u))
            .map(|i| UserInfo {
                provider_id: borrowed(sys::fbs_user_provider_id(u, i)).unwrap_or_default(),
                uid: borrowed(sys::fbs_user_provider_uid(u, i)).unwrap_or_default(),
                email: borrowed(sys::fbs_user_provider_email(u, i)),
                display_name: borrowed(sys::fbs_user_provider_display_name(u, i)),
                photo_url: borrowed(sys::fbs_user_provider_photo_url(u, i)),
                phone_number: borrowed(sys::fbs_user_provider_phone_number(u, i)),
            })
            .collect()
    }
}
