//! The account lifecycle against the bundled emulator's Auth routes (both flavors): credentials,
//! linking, re-authentication, email and password changes, and the emailed codes, read from the
//! emulator's oobCodes route as a test "clicks the link"; storage rules see the result.
mod common;

use std::sync::OnceLock;

use common::{unique, Emulator, TempFile, FLAVORS};
use std::time::{Duration, SystemTime};

use fbstorage::{ActionCodeInfo, ActionCodeSettings, Auth, Credential, ErrorCode};

const RULES: &str = r#"rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /users/{uid}/{file=**} { allow read, write: if request.auth.uid == uid; }
    match /verified/{file=**} { allow write: if request.auth.token.email_verified == true; }
  }
}"#;

/// The emulator of this flavor with RULES: writes below verified/ need a verified email.
fn emulator(flavor: &str) -> &'static Emulator {
    static RULES_FILE: OnceLock<TempFile> = OnceLock::new();
    static PRODUCTION: OnceLock<Emulator> = OnceLock::new();
    static FIREBASE_TOOLS: OnceLock<Emulator> = OnceLock::new();
    let rules = RULES_FILE.get_or_init(|| TempFile::with(RULES.as_bytes()));
    let cell = if flavor == "production" { &PRODUCTION } else { &FIREBASE_TOOLS };
    cell.get_or_init(|| Emulator::start(flavor, &["--rules", rules.0.to_str().unwrap()]))
}

fn auth(emulator: &Emulator) -> Auth {
    let auth = Auth::new("test-api-key", Some("demo-project")).unwrap();
    auth.use_emulator(&emulator.host, emulator.port).unwrap();
    auth
}

/// The value of a string field of one flat JSON object's text.
fn field(object: &str, name: &str) -> String {
    let start = object.find(&format!("\"{name}\": \"")).map(|i| i + name.len() + 5).unwrap_or_else(|| panic!("no {name} in {object}"));
    object[start..start + object[start..].find('"').unwrap()].to_owned()
}

/// The one pending code of this kind for this email (GET /emulator/v1/projects/{id}/oobCodes:
/// {"oobCodes": [{"email": …, "oobCode": …, "oobLink": …, "requestType": …}, …]}).
fn oob_code(emulator: &Emulator, request_type: &str, email: &str) -> String {
    oob_field(emulator, request_type, email, "oobCode")
}

/// A field ("oobCode", "oobLink") of the one pending code of this kind for this email.
fn oob_field(emulator: &Emulator, request_type: &str, email: &str, name: &str) -> String {
    let (status, body) = emulator.request("GET", "/emulator/v1/projects/demo-project/oobCodes", "");
    assert_eq!(status, 200, "{body}");
    let codes: Vec<&str> = body
        .split('{')
        .filter(|code| code.contains(&format!("\"requestType\": \"{request_type}\"")) && code.contains(&format!("\"email\": \"{email}\"")))
        .collect();
    assert_eq!(codes.len(), 1, "{body}");
    field(codes[0], name)
}

fn email(name: &str) -> String {
    format!("{}@example.com", unique(name))
}

/// The Auth emulator's fake Google ID token: a JSON object with sub, email, email_verified.
fn google(sub: &str, email: &str, verified: bool) -> Credential {
    Credential::google(Some(&format!(r#"{{"sub": "{sub}", "email": "{email}", "email_verified": {verified}}}"#)), None).unwrap()
}

#[test]
fn anonymous_user_links_an_email_verifies_it_and_the_rule_allows() {
    for flavor in FLAVORS {
        let emulator = emulator(flavor);
        let auth = auth(emulator);
        let storage = emulator.storage();
        storage.use_auth(Some(&auth)).unwrap();
        let anonymous = auth.sign_in_anonymously().unwrap();
        let notes = storage.reference(&format!("users/{}/notes.txt", anonymous.uid)).unwrap();
        notes.put_data(b"mine", None).unwrap().wait().unwrap();
        let verified = storage.reference(&format!("verified/{}", unique("a"))).unwrap();

        let address = email("ada");
        let linked = auth.link_with_credential(&Credential::email(&address, "secret-1").unwrap()).unwrap();
        assert_eq!((linked.uid.as_str(), linked.is_anonymous, linked.is_email_verified), (anonymous.uid.as_str(), false, false));
        assert_eq!(linked.email.as_deref(), Some(address.as_str()));
        assert_eq!(verified.put_data(b"x", None).unwrap().wait().unwrap_err().code, ErrorCode::Unauthorized, "{flavor}");

        auth.send_email_verification().unwrap();
        auth.apply_action_code(&oob_code(emulator, "VERIFY_EMAIL", &address)).unwrap();
        let reloaded = auth.reload().unwrap();
        assert!(reloaded.is_email_verified && reloaded.claims_json.contains(r#""email_verified":true"#), "{flavor}: {reloaded:?}");
        verified.put_data(b"x", None).unwrap().wait().unwrap_or_else(|e| panic!("{flavor}: {e}"));
        assert_eq!(notes.get_data(100).unwrap(), b"mine", "the anonymous user's files are the account's");
        auth.sign_out().unwrap();
        assert_eq!(auth.sign_in_with_email(&address, "secret-1").unwrap().uid, anonymous.uid);
    }
}

#[test]
fn password_reset_through_the_emailed_code() {
    let emulator = emulator("production");
    let auth = auth(emulator);
    let address = email("bob");
    let created = auth.create_user(&address, "old-secret").unwrap();
    auth.sign_out().unwrap();
    auth.send_password_reset_email(&address).unwrap();
    let code = oob_code(emulator, "PASSWORD_RESET", &address);
    assert_eq!(auth.verify_password_reset_code(&code).unwrap(), address);
    assert_eq!(auth.confirm_password_reset(&code, "123").unwrap_err().code, ErrorCode::AuthWeakPassword);
    auth.confirm_password_reset(&code, "new-secret").unwrap();
    assert_eq!(auth.confirm_password_reset(&code, "other-1").unwrap_err().code, ErrorCode::AuthInvalidActionCode);
    assert_eq!(auth.verify_password_reset_code("no-such-code").unwrap_err().code, ErrorCode::AuthInvalidActionCode);
    assert_eq!(auth.apply_action_code("no-such-code").unwrap_err().code, ErrorCode::AuthInvalidActionCode);
    assert_eq!(auth.sign_in_with_email(&address, "old-secret").unwrap_err().code, ErrorCode::AuthWrongPassword);
    assert_eq!(auth.sign_in_with_email(&address, "new-secret").unwrap().uid, created.uid);
    assert_eq!(auth.send_password_reset_email(&email("nobody")).unwrap_err().code, ErrorCode::AuthUserNotFound);
    assert_eq!(auth.send_password_reset_email("not-an-email").unwrap_err().code, ErrorCode::AuthInvalidEmail);
}

#[test]
fn google_credentials_sign_in_link_and_unlink() {
    for flavor in FLAVORS {
        let emulator = emulator(flavor);
        let auth = auth(emulator);
        let (alice_sub, alice_email) = (unique("google-alice"), email("alice"));
        let alice = auth.sign_in_with_credential(&google(&alice_sub, &alice_email, true)).unwrap();
        assert_eq!((alice.sign_in_provider.as_deref(), alice.is_email_verified), (Some("google.com"), true), "{flavor}");
        assert!(alice.claims_json.contains(&alice_sub), "{}", alice.claims_json);
        assert_eq!(auth.sign_in_with_credential(&google(&alice_sub, &alice_email, true)).unwrap().uid, alice.uid, "returning");

        auth.sign_out().unwrap();
        let anonymous = auth.sign_in_anonymously().unwrap();
        let bob = google(&unique("google-bob"), &email("bob"), true);
        assert_eq!(bob.provider_id(), "google.com");
        let linked = auth.link_with_credential(&bob).unwrap();
        assert!(linked.claims_json.contains(r#""google.com":["#), "{}", linked.claims_json);
        assert!(!format!("{bob:?}").contains("google-bob"), "Debug shows no token");
        assert_eq!(linked.uid, anonymous.uid);
        assert_eq!(auth.link_with_credential(&bob).unwrap_err().code, ErrorCode::AuthProviderAlreadyLinked);
        let unlinked = auth.unlink("google.com").unwrap();
        assert_eq!(unlinked.uid, anonymous.uid);
        assert!(!unlinked.claims_json.contains(r#""google.com":["#), "no Google identity: {}", unlinked.claims_json);
        let taken = auth.link_with_credential(&google(&alice_sub, &alice_email, true)).unwrap_err();
        assert_eq!(taken.code, ErrorCode::AuthCredentialAlreadyInUse, "{flavor}: {taken}");
    }
}

#[test]
fn credential_errors() {
    let emulator = emulator("firebase-tools");
    let auth = auth(emulator);
    let address = email("carol");
    auth.create_user(&address, "secret-1").unwrap();
    auth.sign_out().unwrap();
    let unverified = auth.sign_in_with_credential(&google(&unique("google-carol"), &address, false)).unwrap_err();
    assert_eq!(unverified.code, ErrorCode::AuthAccountExistsWithDifferentCredential, "{unverified}");
    let bad = auth.sign_in_with_credential(&Credential::google(Some("not a token"), None).unwrap()).unwrap_err();
    assert_eq!(bad.code, ErrorCode::AuthInvalidCredential);
    assert_eq!(auth.sign_in_with_credential(&Credential::email(&address, "wrong-1").unwrap()).unwrap_err().code, ErrorCode::AuthWrongPassword);
    assert_eq!(Credential::google(None, None).unwrap_err().code, ErrorCode::InvalidArgument);
    assert_eq!(Credential::idp("password", Some("t"), None).unwrap_err().code, ErrorCode::InvalidArgument);
    assert_eq!(Credential::email("", "secret-1").unwrap_err().code, ErrorCode::InvalidArgument);
    assert_eq!(auth.fetch_sign_in_methods(&address).unwrap(), vec!["password".to_owned()]);
    assert!(auth.fetch_sign_in_methods(&email("nobody")).unwrap().is_empty());
    assert_eq!(auth.fetch_sign_in_methods("not an email").unwrap_err().code, ErrorCode::AuthInvalidEmail);
    assert_eq!(auth.fetch_sign_in_methods("").unwrap_err().code, ErrorCode::InvalidArgument);
    assert_eq!(Credential::twitter("token", "").unwrap_err().code, ErrorCode::InvalidArgument);
    assert_eq!(Credential::oauth("apple.com", None, Some("raw nonce"), Some("access"), None).unwrap_err().code,
               ErrorCode::InvalidArgument);
    let tess_sub = unique("twitter-tess");
    let tess = Credential::twitter(&format!(r#"{{"sub": "{tess_sub}"}}"#), "token secret").unwrap();
    let signed_in = auth.sign_in_with_credential(&tess).unwrap();
    assert_eq!(signed_in.sign_in_provider.as_deref(), Some("twitter.com"));
    let info = signed_in.additional_user_info.expect("a sign-in's answer carries its additional info");
    assert!(info.is_new_user && info.provider_id.as_deref() == Some("twitter.com"));
    assert!(info.profile_json.unwrap().contains(&tess_sub));
    assert_eq!(auth.current_user().unwrap().unwrap().additional_user_info, None);
    assert_eq!(auth.sign_in_with_credential(&tess).unwrap().additional_user_info.map(|i| i.is_new_user), Some(false));
    auth.sign_out().unwrap();
    let credential = Credential::email(&address, "secret-1").unwrap();
    assert_eq!(auth.link_with_credential(&credential).unwrap_err().code, ErrorCode::AuthNoUser);
    assert_eq!(auth.reload().unwrap_err().code, ErrorCode::AuthNoUser);
    assert_eq!(auth.send_email_verification().unwrap_err().code, ErrorCode::AuthNoUser);
    // A credential is Send + Sync: another thread signs in with it.
    let carol = std::thread::scope(|scope| scope.spawn(|| auth.sign_in_with_credential(&credential)).join().unwrap()).unwrap();
    assert_eq!(carol.email.as_deref(), Some(address.as_str()));
    assert_eq!(auth.link_with_credential(&credential).unwrap_err().code, ErrorCode::AuthProviderAlreadyLinked);
}

#[test]
fn reauthentication_and_email_and_password_changes() {
    for flavor in FLAVORS {
        let emulator = emulator(flavor);
        let auth = auth(emulator);
        let (other, address) = (email("eve"), email("frank"));
        auth.create_user(&other, "secret-1").unwrap();
        let frank = auth.create_user(&address, "secret-1").unwrap();
        assert_eq!(auth.reauthenticate(&Credential::email(&address, "secret-1").unwrap()).unwrap().uid, frank.uid);
        let mismatch = auth.reauthenticate(&Credential::email(&other, "secret-1").unwrap()).unwrap_err();
        assert_eq!(mismatch.code, ErrorCode::AuthUserMismatch, "{flavor}: {mismatch}");
        assert_eq!(auth.current_user().unwrap().map(|u| u.uid), Some(frank.uid.clone()), "the user stays");

        auth.update_password("secret-2").unwrap();
        assert_eq!(auth.update_password("123").unwrap_err().code, ErrorCode::AuthWeakPassword);
        assert_eq!(auth.update_email(&other).unwrap_err().code, ErrorCode::AuthEmailAlreadyInUse);
        assert_eq!(auth.update_email("not-an-email").unwrap_err().code, ErrorCode::AuthInvalidEmail);
        let renamed = email("frank2");
        assert_eq!(auth.update_email(&renamed).unwrap().email.as_deref(), Some(renamed.as_str()));

        let final_address = email("frank3");
        auth.verify_before_update_email(&final_address).unwrap();
        auth.apply_action_code(&oob_code(emulator, "VERIFY_AND_CHANGE_EMAIL", &renamed)).unwrap();
        auth.sign_out().unwrap();
        let again = auth.sign_in_with_email(&final_address, "secret-2").unwrap();
        assert_eq!((again.uid.as_str(), again.is_email_verified), (frank.uid.as_str(), true), "{flavor}");
    }
}

/// Polls `ready` every 50 ms for up to 10 s: the waits below are for the wall clock itself.
fn wait_until(what: &str, ready: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !ready() {
        assert!(std::time::Instant::now() < deadline, "waited 10 s for {what}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn requires_recent_login_and_expired_codes() {
    // Production's checks with short windows: a sign-in older than 1 s is not recent; codes live 1 s.
    let emulator = Emulator::start("production", &["--auth-recent-login", "1", "--auth-oob-code-lifetime", "1"]);
    let auth = auth(&emulator);
    let address = email("old");
    let user = auth.create_user(&address, "secret-1").unwrap();
    auth.send_email_verification().unwrap();
    let code = oob_code(&emulator, "VERIFY_EMAIL", &address);
    let signed_in = user.auth_time.unwrap();
    wait_until("the sign-in to age", || signed_in.elapsed().is_ok_and(|age| age.as_millis() > 1200));
    wait_until("the code to expire", || {
        !emulator.request("GET", "/emulator/v1/projects/demo-project/oobCodes", "").1.contains(&code)
    });
    assert_eq!(auth.apply_action_code(&code).unwrap_err().code, ErrorCode::AuthExpiredActionCode);
    assert_eq!(auth.update_password("secret-2").unwrap_err().code, ErrorCode::AuthRequiresRecentLogin);
    assert_eq!(auth.update_email(&email("new")).unwrap_err().code, ErrorCode::AuthRequiresRecentLogin);
    auth.reauthenticate(&Credential::email(&address, "secret-1").unwrap()).unwrap();
    auth.update_password("secret-2").unwrap();
    auth.sign_out().unwrap();
    assert_eq!(auth.sign_in_with_email(&address, "secret-2").unwrap().uid, user.uid);
}

#[test]
fn email_link_sign_in_then_the_accounts_sign_in_methods_and_dates() {
    for flavor in FLAVORS {
        let emulator = emulator(flavor);
        let auth = auth(emulator);
        let address = email("link");
        let settings = ActionCodeSettings {
            url: "https://app.example.com/finish?cart=12".into(),
            handle_code_in_app: true,
            android_package_name: Some("com.example.android".into()),
            android_install_app: true,
            ..Default::default()
        };
        let before = SystemTime::now() - Duration::from_secs(1);
        auth.send_sign_in_link_to_email(&address, &settings).unwrap();
        let link = oob_field(emulator, "EMAIL_SIGNIN", &address, "oobLink");
        assert!(link.contains("continueUrl=https%3A%2F%2Fapp.example.com%2Ffinish%3Fcart%3D12"), "{link}");
        assert!(auth.is_sign_in_with_email_link(&link).unwrap());
        assert!(!auth.is_sign_in_with_email_link("https://x.example/a?mode=verifyEmail&oobCode=c0de").unwrap());

        let user = auth.sign_in_with_email_link(&address, &link).unwrap();
        assert_eq!((user.email.as_deref(), user.is_email_verified), (Some(address.as_str()), true), "{flavor}");
        // The sign-in reads the account (as the SDKs do); a reload finds the same.
        assert_eq!(user.provider_data.len(), 1, "{flavor}: {:?}", user.provider_data);
        assert!(user.creation_time.is_some(), "{flavor}");
        assert_eq!(auth.sign_in_with_email_link(&address, &link).unwrap_err().code, ErrorCode::AuthInvalidActionCode);

        let reloaded = auth.reload().unwrap();
        assert_eq!((&reloaded.provider_data, reloaded.creation_time), (&user.provider_data, user.creation_time), "{flavor}");
        let password = &reloaded.provider_data[0];
        assert_eq!((password.provider_id.as_str(), password.uid.as_str()), ("password", address.as_str()));
        assert_eq!(password.email.as_deref(), Some(address.as_str()));
        let created = reloaded.creation_time.expect("creation time");
        let after = SystemTime::now() + Duration::from_secs(1);
        assert!(before <= created && created <= after, "{flavor}: {created:?}");
        assert!(reloaded.last_sign_in_time.is_some_and(|t| created <= t && t <= after));

        let sub = unique("google-lee");
        let lee = Credential::google(Some(&format!(r#"{{"sub": "{sub}", "email": "{address}", "name": "Lee"}}"#)), None).unwrap();
        let linked = auth.link_with_credential(&lee).unwrap();
        let google = linked.provider_data.iter().find(|info| info.provider_id == "google.com").expect("Google listed");
        assert_eq!((google.uid.as_str(), google.display_name.as_deref()), (sub.as_str(), Some("Lee")), "{flavor}");
        assert_eq!(linked.provider_data.len(), 2);
        assert_eq!(linked.creation_time, Some(created));
        let unlinked = auth.unlink("google.com").unwrap();
        assert_eq!(unlinked.provider_data, vec![password.clone()]);
    }
}

#[test]
fn email_link_and_action_code_errors() {
    let emulator = emulator("production");
    let auth = auth(emulator);
    let address = email("check");
    let in_browser = ActionCodeSettings { url: "https://app.example.com/finish".into(), ..Default::default() };
    assert_eq!(auth.send_sign_in_link_to_email(&address, &in_browser).unwrap_err().code, ErrorCode::InvalidArgument);
    let relative = ActionCodeSettings { url: "/finish".into(), handle_code_in_app: true, ..Default::default() };
    assert_eq!(auth.send_sign_in_link_to_email(&address, &relative).unwrap_err().code, ErrorCode::InvalidArgument);
    let settings = ActionCodeSettings { url: "https://app.example.com/finish".into(), handle_code_in_app: true, ..Default::default() };
    assert_eq!(auth.send_sign_in_link_to_email("not-an-email", &settings).unwrap_err().code, ErrorCode::AuthInvalidEmail);

    auth.create_user(&address, "secret-1").unwrap();
    auth.send_password_reset_email(&address).unwrap();
    let reset = oob_code(emulator, "PASSWORD_RESET", &address);
    let info = auth.check_action_code(&reset).unwrap();
    assert_eq!(info, ActionCodeInfo { operation: "PASSWORD_RESET".into(), email: Some(address.clone()), new_email: None });
    auth.send_sign_in_link_to_email(&address, &settings).unwrap();
    let sign_in = oob_code(emulator, "EMAIL_SIGNIN", &address);
    assert_eq!(auth.check_action_code(&sign_in).unwrap(), ActionCodeInfo { operation: "EMAIL_SIGNIN".into(), email: None, new_email: None });
    assert_eq!(auth.check_action_code("no-such-code").unwrap_err().code, ErrorCode::AuthInvalidActionCode);
    assert_eq!(auth.check_action_code("").unwrap_err().code, ErrorCode::InvalidArgument);
    auth.confirm_password_reset(&reset, "new-secret").unwrap();   // checking used nothing up
}
