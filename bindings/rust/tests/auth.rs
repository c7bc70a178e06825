//! Sign-in against the bundled emulator's Auth routes (served on its storage port), and
//! uploads as the signed-in user under owner-only Security Rules (both flavors).
mod common;

use std::sync::{Arc, Mutex, OnceLock};

use common::{repository, unique, Emulator, FLAVORS};
use fbstorage::{Auth, ErrorCode, Storage, User};

/// The emulator of this flavor with examples/owner-only.rules: each user writes only below users/<uid>/.
fn emulator(flavor: &str) -> &'static Emulator {
    static PRODUCTION: OnceLock<Emulator> = OnceLock::new();
    static FIREBASE_TOOLS: OnceLock<Emulator> = OnceLock::new();
    let cell = if flavor == "production" { &PRODUCTION } else { &FIREBASE_TOOLS };
    let rules = repository().join("examples/owner-only.rules");
    cell.get_or_init(|| Emulator::start(flavor, &["--rules", rules.to_str().unwrap()]))
}

fn auth(emulator: &Emulator) -> Auth {
    let auth = Auth::new("test-api-key", Some("demo-project")).unwrap();
    auth.use_emulator(&emulator.host, emulator.port).unwrap();
    auth
}

#[test]
fn anonymous_user_uploads_below_its_own_folder_only() {
    for flavor in FLAVORS {
        let emulator = emulator(flavor);
        let auth = auth(emulator);
        let user = auth.sign_in_anonymously().unwrap();
        assert!(user.is_anonymous && !user.uid.is_empty() && !user.id_token.is_empty(), "{user:?}");
        assert_eq!(user.sign_in_provider.as_deref(), Some("anonymous"));
        assert!(user.token_expiration > user.token_issued_at);
        assert_eq!(auth.current_user().unwrap().map(|u| u.uid), Some(user.uid.clone()));
        assert!(!format!("{user:?}").contains(&user.id_token), "Debug shows no token");

        let storage = emulator.storage();
        storage.use_auth(Some(&auth)).unwrap();
        let mine = storage.reference(&format!("users/{}/{}", user.uid, unique("note.txt"))).unwrap();
        mine.put_data(b"mine", None).unwrap().wait().unwrap_or_else(|e| panic!("{flavor}: {e}"));
        assert_eq!(mine.get_data(100).unwrap(), b"mine");
        let theirs = storage.reference(&format!("users/someone-else/{}", unique("note.txt"))).unwrap();
        let denied = theirs.put_data(b"theirs", None).unwrap().wait().unwrap_err();
        assert_eq!((denied.code, denied.http_status), (ErrorCode::Unauthorized, Some(403)), "{flavor}");

        auth.sign_out().unwrap();
        assert_eq!(auth.current_user().unwrap(), None);
        assert_eq!(mine.get_data(100).unwrap_err().code, ErrorCode::Unauthorized, "signed out: no token sent");
        assert_eq!(auth.id_token(false).unwrap_err().code, ErrorCode::AuthNoUser);
    }
}

#[test]
fn email_accounts_and_their_errors() {
    let emulator = emulator("production");
    let auth = auth(emulator);
    let email = format!("{}@example.com", unique("rust"));
    let created = auth.create_user(&email, "correct horse").unwrap();
    assert_eq!((created.email.as_deref(), created.is_anonymous), (Some(email.as_str()), false));
    assert_eq!(auth.create_user(&email, "another one").unwrap_err().code, ErrorCode::AuthEmailAlreadyInUse);
    assert_eq!(auth.create_user(&format!("x{email}"), "123").unwrap_err().code, ErrorCode::AuthWeakPassword);
    assert_eq!(auth.create_user("not an email", "correct horse").unwrap_err().code, ErrorCode::AuthInvalidEmail);
    auth.sign_out().unwrap();
    let wrong = auth.sign_in_with_email(&email, "wrong horse").unwrap_err();
    assert_eq!(wrong.code, ErrorCode::AuthWrongPassword);
    assert!(!wrong.message.contains("wrong horse"), "no password in messages: {wrong}");
    assert_eq!(auth.sign_in_with_email("nobody@example.com", "whatever").unwrap_err().code, ErrorCode::AuthUserNotFound);
    let signed_in = auth.sign_in_with_email(&email, "correct horse").unwrap();
    assert_eq!((signed_in.uid.as_str(), signed_in.sign_in_provider.as_deref()), (created.uid.as_str(), Some("password")));
    assert_eq!(auth.sign_in_with_email("", "x").unwrap_err().code, ErrorCode::InvalidArgument);
}

#[test]
fn a_refresh_token_restores_the_session_elsewhere_until_the_user_is_deleted() {
    let emulator = emulator("production");
    let first = auth(emulator);
    let user = first.sign_in_with_custom_token(&format!(r#"{{"uid": "{}"}}"#, unique("custom"))).unwrap();
    assert_eq!(user.sign_in_provider.as_deref(), Some("custom"));
    let second = auth(emulator);
    let restored = second.sign_in_with_refresh_token(&user.refresh_token).unwrap();
    assert_eq!(restored.uid, user.uid);
    assert!(!second.id_token(true).unwrap().is_empty());
    first.delete_user().unwrap();
    assert_eq!(first.current_user().unwrap(), None);
    let third = auth(emulator);
    assert_eq!(third.sign_in_with_refresh_token(&user.refresh_token).unwrap_err().code, ErrorCode::AuthUserNotFound);
    assert_eq!(third.sign_in_with_custom_token("garbage").unwrap_err().code, ErrorCode::AuthInvalidCustomToken);
}

#[test]
fn listeners_hear_sign_in_and_out_until_removed() {
    let emulator = emulator("production");
    let auth = auth(emulator);
    let (heard, changed) = (Arc::new(Mutex::new(Vec::<Option<String>>::new())), Arc::new(std::sync::Condvar::new()));
    let (record, notify) = (heard.clone(), changed.clone());
    let listener = auth
        .add_state_listener(move |user: Option<&User>| {
            record.lock().unwrap().push(user.map(|u| u.uid.clone()));
            notify.notify_all();
        })
        .unwrap();
    let wait_for = |count: usize| {
        let guard = heard.lock().unwrap();
        let (guard, timeout) = changed.wait_timeout_while(guard, std::time::Duration::from_secs(30), |h| h.len() < count).unwrap();
        assert!(!timeout.timed_out(), "{:?}", *guard);
        guard.clone()
    };
    assert_eq!(wait_for(1), [None], "called once at registration");
    let user = auth.sign_in_anonymously().unwrap();
    auth.sign_out().unwrap();
    assert_eq!(wait_for(3), [None, Some(user.uid.clone()), None]);
    auth.remove_listener(listener).unwrap();
    assert_eq!(Arc::strong_count(&heard), 1, "the removed listener's closure was dropped");
    auth.sign_in_anonymously().unwrap();
    assert_eq!(heard.lock().unwrap().len(), 3);
}

#[test]
fn the_auth_outlives_its_handle_while_a_storage_uses_it() {
    let emulator = emulator("firebase-tools");
    let storage: Storage = emulator.storage();
    let uid = {
        let auth = auth(emulator);
        storage.use_auth(Some(&auth)).unwrap();
        auth.sign_in_anonymously().unwrap().uid
    }; // the handle is dropped; the storage keeps the auth
    let reference = storage.reference(&format!("users/{uid}/{}", unique("kept"))).unwrap();
    reference.put_data(b"still signed in", None).unwrap().wait().unwrap();
    storage.use_auth(None).unwrap();
    assert_eq!(reference.get_data(100).unwrap_err().code, ErrorCode::Unauthorized);
}

#[test]
fn a_persistence_file_restores_the_user_in_a_new_auth() {
    use std::os::unix::fs::PermissionsExt;
    let emulator = emulator("production");
    let file = common::TempFile::path("session.json");
    let first = auth(emulator);
    first.set_persistence_file(Some(&file.0)).unwrap();
    let user = first.sign_in_anonymously().unwrap();
    assert_eq!(std::fs::metadata(&file.0).unwrap().permissions().mode() & 0o777, 0o600);
    let second = auth(emulator);
    second.set_persistence_file(Some(&file.0)).unwrap();
    assert_eq!(second.current_user().unwrap().map(|u| u.uid), Some(user.uid));
    assert!(!second.id_token(false).unwrap().is_empty());
    second.sign_out().unwrap();
    assert!(!file.0.exists(), "signing out removes the file");
}

#[test]
fn a_fixed_id_token_is_sent_until_cleared() {
    let emulator = emulator("production");
    let auth = auth(emulator);
    let user = auth.sign_in_anonymously().unwrap();
    let storage = emulator.storage();
    storage.set_auth_token(Some(&auth.id_token(false).unwrap())).unwrap();
    let reference = storage.reference(&format!("users/{}/{}", user.uid, unique("fixed"))).unwrap();
    reference.put_data(b"with a fixed token", None).unwrap().wait().unwrap();
    storage.set_auth_token(None).unwrap();
    assert_eq!(reference.get_data(100).unwrap_err().code, ErrorCode::Unauthorized);
    assert_eq!(storage.set_auth_token(Some("bad\ntoken")).unwrap_err().code, ErrorCode::InvalidArgument);
}
