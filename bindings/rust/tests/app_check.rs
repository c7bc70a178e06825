//! App Check against emulators of both flavors that enforce it (tokens living 3 s): the debug
//! provider, a custom provider answering from a thread of its own, a minted token, limited-use
//! tokens, token listeners, and each refusal with its code.
mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{payload, unique, Emulator, FLAVORS};
use fbstorage::{AppCheck, AppCheckToken, ErrorCode, Storage};

const PROJECT: &str = "rust-app-check";
const APP_ID: &str = "1:1:web:rustac";
const DEBUG_SECRET: &str = "rust-ci-debug-secret";

fn enforcing(flavor: &str) -> &'static Emulator {
    static PRODUCTION: OnceLock<Emulator> = OnceLock::new();
    static FIREBASE_TOOLS: OnceLock<Emulator> = OnceLock::new();
    let cell = if flavor == "production" { &PRODUCTION } else { &FIREBASE_TOOLS };
    cell.get_or_init(|| {
        Emulator::start(flavor, &["--project", PROJECT, "--app-check", "enforce", "--app-check-debug-token", DEBUG_SECRET,
                                  "--app-check-token-ttl", "3"])
    })
}

fn app_check(emulator: &Emulator) -> AppCheck {
    let app_check = AppCheck::new(PROJECT, APP_ID, None).unwrap();
    app_check.use_emulator(&emulator.host, emulator.port).unwrap();
    app_check
}

/// A token of the emulator's mint (what a backend's firebase-admin gives), for `project`
/// (None: the emulator's own).
fn mint(emulator: &Emulator, project: Option<&str>, limited_use: bool) -> AppCheckToken {
    let project = project.map_or(String::new(), |p| format!(r#", "project": "{p}""#));
    let ask = format!(r#"{{"appId": "{APP_ID}", "ttlSeconds": 60, "limitedUse": {limited_use}{project}}}"#);
    let (status, body) = emulator.request("POST", "/_emulator/app-check/tokens", &ask);
    assert_eq!(status, 200, "{body}");
    let start = body.find(r#""token""#).and_then(|at| body[at + 7..].find('"').map(|q| at + 8 + q)).expect(&body);
    let token = body[start..].split('"').next().unwrap().to_owned();
    AppCheckToken { token, expire_time: SystemTime::now() + Duration::from_secs(60) }
}

/// Uploads data and reads it back.
fn round_trip(storage: &Storage, name: &str, data: &[u8]) -> fbstorage::Result<()> {
    let reference = storage.reference(&unique(name))?;
    reference.put_data(data, None)?.wait()?;
    assert_eq!(reference.get_data(data.len() as u64 + 1)?, data);
    Ok(())
}

#[test]
fn debug_provider_uploads_and_downloads() {
    for flavor in FLAVORS {
        let emulator = enforcing(flavor);
        let app_check = app_check(emulator);
        app_check.set_debug_provider(Some(DEBUG_SECRET)).unwrap();
        let storage = emulator.storage();
        storage.use_app_check(Some(&app_check)).unwrap();
        drop(app_check); // the storage keeps it
        round_trip(&storage, "ac-debug", &payload(1000)).unwrap_or_else(|e| panic!("{flavor}: {e}"));
        storage.set_upload_chunk_size(256 * 1024).unwrap(); // resumable chunks carry the token too
        round_trip(&storage, "ac-debug-chunks", &payload(600 * 1024)).unwrap_or_else(|e| panic!("{flavor}: {e}"));
    }
}

#[test]
fn custom_provider_answers_from_another_thread() {
    for flavor in FLAVORS {
        let emulator = enforcing(flavor);
        let app_check = app_check(emulator);
        let (calls, limited_calls, fail_next) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)), Arc::new(AtomicBool::new(false)));
        let (c, l, f) = (calls.clone(), limited_calls.clone(), fail_next.clone());
        app_check
            .set_custom_provider(move |request| {
                c.fetch_add(1, Ordering::SeqCst);
                if request.limited_use() {
                    l.fetch_add(1, Ordering::SeqCst);
                }
                let fail = f.swap(false, Ordering::SeqCst);
                std::thread::spawn(move || {
                    if fail {
                        return request.fail("the backend said no");
                    }
                    let token = mint(emulator, None, request.limited_use());
                    request.complete(&token).unwrap();
                });
            })
            .unwrap();
        let storage = emulator.storage();
        storage.use_app_check(Some(&app_check)).unwrap();
        round_trip(&storage, "ac-custom", &payload(5000)).unwrap_or_else(|e| panic!("{flavor}: {e}"));
        assert!(calls.load(Ordering::SeqCst) >= 1);
        let limited = app_check.limited_use_token().unwrap();
        assert!(!limited.token.is_empty() && limited.expire_time > SystemTime::now());
        assert_eq!(limited_calls.load(Ordering::SeqCst), 1);
        assert!(!format!("{limited:?}").contains(&limited.token), "Debug shows no token");
        fail_next.store(true, Ordering::SeqCst);
        let failure = app_check.token(true).unwrap_err();
        assert_eq!(failure.code, ErrorCode::AppCheckProviderFailed, "{flavor}: {failure}");
        assert!(failure.to_string().contains("the backend said no"), "{failure}");
        // A provider that drops its request unanswered fails it: no silent wait.
        app_check.set_custom_provider(drop).unwrap();
        assert_eq!(app_check.token(true).unwrap_err().code, ErrorCode::AppCheckProviderFailed);
    }
}

#[test]
fn refusals_have_their_codes() {
    for flavor in FLAVORS {
        let emulator = enforcing(flavor);
        let storage = emulator.storage();
        let missing = round_trip(&storage, "ac-refused", b"x").unwrap_err();
        assert_eq!((missing.code, missing.http_status), (ErrorCode::AppCheckTokenMissing, Some(401)), "{flavor}: {missing}");
        let app_check = app_check(emulator);
        storage.use_app_check(Some(&app_check)).unwrap();
        assert_eq!(round_trip(&storage, "ac-refused", b"x").unwrap_err().code, ErrorCode::AppCheckTokenMissing);
        assert_eq!(app_check.token(false).unwrap_err().code, ErrorCode::AppCheckNoProvider);
        app_check.set_debug_provider(Some("not-registered")).unwrap();
        let refused = round_trip(&storage, "ac-refused", b"x").unwrap_err();
        assert_eq!(refused.code, ErrorCode::AppCheckAttestationFailed, "{flavor}: {refused}");
        assert!(!refused.to_string().contains("not-registered"), "the secret stays out of messages");
        let foreign = mint(emulator, Some("other-project"), false);
        app_check.set_token(&foreign).unwrap();
        let invalid = round_trip(&storage, "ac-refused", b"x").unwrap_err();
        assert_eq!(invalid.code, ErrorCode::AppCheckTokenInvalid, "{flavor}: {invalid}");
        assert!(!invalid.to_string().contains(&foreign.token));
        let expired = AppCheckToken { expire_time: SystemTime::now() - Duration::from_secs(1), ..foreign };
        assert_eq!(app_check.set_token(&expired).unwrap_err().code, ErrorCode::InvalidArgument);
    }
}

#[test]
fn token_listeners_hear_each_kept_token() {
    use std::sync::mpsc::{channel, RecvTimeoutError};
    for flavor in FLAVORS {
        let app_check = app_check(enforcing(flavor));
        app_check.set_debug_provider(Some(DEBUG_SECRET)).unwrap();
        let (heard_tx, heard) = channel::<AppCheckToken>();
        let (later_tx, later) = channel::<AppCheckToken>();
        let handle = app_check.add_token_listener(move |token| heard_tx.send(token.clone()).unwrap()).unwrap();
        app_check.add_token_listener(move |token| later_tx.send(token.clone()).unwrap()).unwrap();
        let wait = Duration::from_secs(10);
        // Each renewal is heard, in order; the limited-use token never is.
        let first = app_check.token(false).unwrap();
        assert_eq!(heard.recv_timeout(wait).unwrap(), first, "{flavor}");
        app_check.limited_use_token().unwrap();
        let forced = app_check.token(true).unwrap();
        assert_eq!(heard.recv_timeout(wait).unwrap(), forced, "{flavor}");
        // Removed: the other listener hears the next renewal, the removed one nothing more.
        app_check.remove_token_listener(handle).unwrap();
        assert_eq!(app_check.remove_token_listener(handle).unwrap_err().code, ErrorCode::InvalidArgument);
        let third = app_check.token(true).unwrap();
        let told: Vec<AppCheckToken> = (0..3).map(|_| later.recv_timeout(wait).unwrap()).collect();
        assert_eq!(told, [first, forced, third.clone()], "{flavor}");
        // The removed listener's closure was dropped with its sender: its channel is closed.
        assert_eq!(heard.recv_timeout(wait).unwrap_err(), RecvTimeoutError::Disconnected, "{flavor}");
        // A token given is heard at once; a listener added while it is kept hears it now.
        let given = AppCheckToken { token: "minted-elsewhere".into(), expire_time: UNIX_EPOCH + Duration::from_secs(now_secs() + 600) };
        app_check.set_token(&given).unwrap();
        assert_eq!(later.recv_timeout(wait).unwrap(), given, "{flavor}");
        let (registered_tx, registered) = channel::<AppCheckToken>();
        app_check.add_token_listener(move |token| registered_tx.send(token.clone()).unwrap()).unwrap();
        assert_eq!(registered.recv_timeout(wait).unwrap(), given, "{flavor}");
        drop(app_check); // removes its listeners: their closures (and senders) are dropped
        assert_eq!(later.recv_timeout(wait).unwrap_err(), RecvTimeoutError::Disconnected, "{flavor}");
        assert_eq!(registered.recv_timeout(wait).unwrap_err(), RecvTimeoutError::Disconnected, "{flavor}");
    }
}

#[test]
fn auto_refresh_renews_with_no_request() {
    use std::sync::mpsc::channel;
    let app_check = app_check(enforcing("production"));
    app_check.set_debug_provider(Some(DEBUG_SECRET)).unwrap();
    assert!(!app_check.is_token_auto_refresh_enabled(), "off by default");
    app_check.set_token_auto_refresh_enabled(true).unwrap();
    assert!(app_check.is_token_auto_refresh_enabled());
    let (heard_tx, heard) = channel::<AppCheckToken>();
    app_check.add_token_listener(move |token| heard_tx.send(token.clone()).unwrap()).unwrap();
    let wait = Duration::from_secs(10);
    let first = app_check.token(false).unwrap();
    assert_eq!(heard.recv_timeout(wait).unwrap(), first);
    // Renewed halfway through each 3 s life, with no request.
    for _ in 0..2 {
        assert!(heard.recv_timeout(wait).unwrap().expire_time > first.expire_time);
    }
    app_check.set_token_auto_refresh_enabled(false).unwrap();
}

fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}
