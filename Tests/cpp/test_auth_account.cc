// test_auth_account.cc — the account lifecycle of firebase::auth (credentials, linking,
// re-authentication, email and password changes, email actions) against the bundled emulator's
// Auth routes, in both flavors: codes are read from its oobCodes route and applied by opening
// their links, as a user's click does; storage rules see the result.
#include <nlohmann/json.hpp>

#include <chrono>
#include <thread>

#include "firebase/auth.h"
#include "fixtures.h"

using firebase::Future;
using firebase::auth::AuthResult;
using firebase::auth::Credential;
using firebase::auth::EmailAuthProvider;
using firebase::auth::GoogleAuthProvider;
using firebase::auth::User;
using nlohmann::json;

namespace {

const char kVerifiedOnlyRules[] = R"(rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /users/{uid}/{file=**} { allow read, write: if request.auth.uid == uid; }
    match /verified/{file=**} { allow write: if request.auth.token.email_verified == true; }
  }
})";

// A Google credential with the Auth emulator's fake ID token (a JSON object, as its docs describe).
Credential Google(const json& claims) { return GoogleAuthProvider::GetCredential(claims.dump().c_str(), nullptr); }

std::vector<std::string> ProviderIds(const User& user) {
  std::vector<std::string> ids;
  for (const auto& info : user.provider_data()) ids.push_back(info.provider_id() + ":" + info.uid());
  std::sort(ids.begin(), ids.end());
  return ids;
}

class AuthAccountTest : public FlavorAuthTest {
 protected:
  // The link of the one pending code of this kind for this email.
  std::string OobLink(const std::string& request_type, const std::string& email) {
    std::vector<OobCode> codes = PendingOobCodes(emulator(), request_type, email);
    EXPECT_EQ(codes.size(), 1u) << request_type << " for " << email;
    return codes.empty() ? std::string() : codes[0].link;
  }
  // Opens a link of the emulator (what clicking it in the mail does): the HTTP status.
  long Open(const std::string& link, std::string* answer = nullptr) {
    if (link.rfind(emulator().base_url(), 0) != 0) {
      ADD_FAILURE() << "not a link of the emulator: " << link;
      return 0;
    }
    return emulator().Request("GET", link.substr(emulator().base_url().size()), "", answer);
  }
  int Upload(const std::string& path) {
    return Completed(storage->GetReference(path.c_str()).PutBytes("x", 1)).error();
  }
};
INSTANTIATE_TEST_SUITE_P(Flavors, AuthAccountTest, FBS_BOTH_FLAVORS);

// The issue's path: an anonymous user links an email, verifies it through the emailed code, and
// a rule on request.auth.token.email_verified then allows; its files stay its own.
TEST_P(AuthAccountTest, AnonymousUserLinksEmailVerifiesItAndRulesAllow) {
  emulator().SetRules(kVerifiedOnlyRules);
  User user = Succeeded(auth->SignInAnonymously()).user;
  const std::string uid = user.uid();
  Succeeded(storage->GetReference(("users/" + uid + "/notes.txt").c_str()).PutBytes("mine", 4));
  EXPECT_EQ(ProviderIds(user), std::vector<std::string>{});

  Future<AuthResult> linked = user.LinkWithCredential(EmailAuthProvider::GetCredential("ada@example.com", "secret-1"));
  EXPECT_EQ(Succeeded(linked).user.uid(), uid);
  EXPECT_EQ(user.LinkWithCredentialLastResult(), linked);
  EXPECT_FALSE(user.is_anonymous());  // the User shows the current user's new state
  EXPECT_EQ(user.email(), "ada@example.com");
  EXPECT_FALSE(user.is_email_verified());
  EXPECT_EQ(ProviderIds(user), std::vector<std::string>{"password:ada@example.com"});
  EXPECT_EQ(Upload("verified/a.txt"), firebase::storage::kErrorUnauthorized);

  Future<void> sent = user.SendEmailVerification();
  EXPECT_EQ(Completed(sent).error(), 0) << sent.error_message();
  EXPECT_EQ(user.SendEmailVerificationLastResult(), sent);
  std::string answer;
  EXPECT_EQ(Open(OobLink("VERIFY_EMAIL", "ada@example.com"), &answer), 200) << answer;
  EXPECT_FALSE(user.is_email_verified());  // not before the user is read again

  Future<void> reloaded = user.Reload();
  EXPECT_EQ(Completed(reloaded).error(), 0) << reloaded.error_message();
  EXPECT_EQ(user.ReloadLastResult(), reloaded);
  EXPECT_TRUE(user.is_email_verified());
  EXPECT_EQ(Upload("verified/a.txt"), 0);
  EXPECT_EQ(Succeeded(storage->GetReference(("users/" + uid + "/notes.txt").c_str()).GetMetadata()).size_bytes(), 4);
  EXPECT_GT(user.metadata().last_sign_in_timestamp, 1600000000000u);

  // The password is a sign-in method of the same account now.
  auth->SignOut();
  EXPECT_EQ(Succeeded(auth->SignInWithEmailAndPassword("ada@example.com", "secret-1")).user.uid(), uid);
}

TEST_P(AuthAccountTest, PasswordResetThroughTheEmailedLink) {
  std::string uid = Succeeded(auth->CreateUserWithEmailAndPassword("bob@example.com", "old-secret")).user.uid();
  auth->SignOut();
  Future<void> sent = auth->SendPasswordResetEmail("bob@example.com");
  EXPECT_EQ(Completed(sent).error(), 0) << sent.error_message();
  EXPECT_EQ(auth->SendPasswordResetEmailLastResult(), sent);
  std::string answer;
  EXPECT_EQ(Open(OobLink("PASSWORD_RESET", "bob@example.com") + "&newPassword=new-secret", &answer), 200) << answer;
  EXPECT_EQ(Completed(auth->SignInWithEmailAndPassword("bob@example.com", "old-secret")).error(),
            firebase::auth::kAuthErrorWrongPassword);
  EXPECT_EQ(Succeeded(auth->SignInWithEmailAndPassword("bob@example.com", "new-secret")).user.uid(), uid);

  EXPECT_EQ(Completed(auth->SendPasswordResetEmail("nobody@example.com")).error(), firebase::auth::kAuthErrorUserNotFound);
  EXPECT_EQ(Completed(auth->SendPasswordResetEmail("not-an-email")).error(), firebase::auth::kAuthErrorInvalidEmail);
  EXPECT_EQ(Completed(auth->SendPasswordResetEmail(nullptr)).error(), firebase::auth::kAuthErrorInvalidParameter);
}

TEST_P(AuthAccountTest, GoogleCredentialSignsInThenLinksAndUnlinks) {
  const json alice = {{"sub", "google-alice"}, {"email", "alice@gmail.com"}, {"email_verified", true}, {"name", "Alice"}};
  Future<AuthResult> signed_in = auth->SignInAndRetrieveDataWithCredential(Google(alice));
  const AuthResult& result = Succeeded(signed_in);
  EXPECT_EQ(auth->SignInAndRetrieveDataWithCredentialLastResult(), signed_in);
  EXPECT_EQ(result.additional_user_info.provider_id, "google.com");
  EXPECT_EQ(result.user.email(), "alice@gmail.com");
  EXPECT_EQ(result.user.display_name(), "Alice");
  EXPECT_TRUE(result.user.is_email_verified());
  // The sign-in read the account (as the SDK does): Google is its one sign-in method.
  EXPECT_EQ(ProviderIds(result.user), (std::vector<std::string>{"google.com:google-alice"}));
  // A returning user: the same account (SignInWithCredential answers the User).
  Future<User> again = auth->SignInWithCredential(Google(alice));
  EXPECT_EQ(Succeeded(again).uid(), result.user.uid());

  // An anonymous user links a Google identity, then unlinks it; the uid stays.
  auth->SignOut();
  User anonymous = Succeeded(auth->SignInAnonymously()).user;
  const json bob = {{"sub", "google-bob"}, {"email", "bob@gmail.com"}, {"email_verified", true}};
  AuthResult linked_bob = Succeeded(anonymous.LinkWithCredential(Google(bob)));
  EXPECT_EQ(linked_bob.user.uid(), anonymous.uid());
  // A provider's link answers what the provider said, as a sign-in does.
  EXPECT_EQ(linked_bob.additional_user_info.provider_id, "google.com");
  EXPECT_EQ(linked_bob.additional_user_info.profile[firebase::Variant("sub")], firebase::Variant("google-bob"));
  // The link read the account: Google is its only sign-in method (the token's "email" identity is not a password).
  EXPECT_EQ(ProviderIds(anonymous), (std::vector<std::string>{"google.com:google-bob"}));
  EXPECT_EQ(Completed(anonymous.LinkWithCredential(Google(bob))).error(), firebase::auth::kAuthErrorProviderAlreadyLinked);
  Future<AuthResult> unlinked = anonymous.Unlink(GoogleAuthProvider::kProviderId);
  EXPECT_EQ(Succeeded(unlinked).user.uid(), anonymous.uid());
  EXPECT_EQ(anonymous.UnlinkLastResult(), unlinked);
  for (const auto& id : ProviderIds(anonymous)) EXPECT_EQ(id.rfind("google.com", 0), std::string::npos) << id;

  // Alice's identity belongs to her account: linking it elsewhere is refused.
  EXPECT_EQ(Completed(anonymous.LinkWithCredential(Google(alice))).error(), firebase::auth::kAuthErrorCredentialAlreadyInUse);
}

TEST_P(AuthAccountTest, CredentialErrors) {
  Succeeded(auth->CreateUserWithEmailAndPassword("carol@example.com", "secret-1"));
  auth->SignOut();
  // The IdP does not vouch for the email of an existing account: sign in to it, then link.
  const json unverified = {{"sub", "google-carol"}, {"email", "carol@example.com"}, {"email_verified", false}};
  EXPECT_EQ(Completed(auth->SignInAndRetrieveDataWithCredential(Google(unverified))).error(),
            firebase::auth::kAuthErrorAccountExistsWithDifferentCredentials);
  EXPECT_EQ(Completed(auth->SignInWithCredential(GoogleAuthProvider::GetCredential("not a token", nullptr))).error(),
            firebase::auth::kAuthErrorInvalidCredential);
  EXPECT_EQ(Completed(auth->SignInWithCredential(EmailAuthProvider::GetCredential("carol@example.com", "wrong-1"))).error(),
            firebase::auth::kAuthErrorWrongPassword);
  EXPECT_EQ(Completed(auth->SignInWithCredential(EmailAuthProvider::GetCredential("dan@example.com", "secret-1"))).error(),
            firebase::auth::kAuthErrorUserNotFound);
  EXPECT_FALSE(auth->current_user().is_valid());

  // Invalid credentials: refused at once, with the reason.
  Credential no_email = EmailAuthProvider::GetCredential(nullptr, "secret-1");
  Credential no_password = EmailAuthProvider::GetCredential("carol@example.com", "");
  Credential no_token = GoogleAuthProvider::GetCredential(nullptr, nullptr);
  Credential empty;
  EXPECT_FALSE(no_email.is_valid());
  EXPECT_FALSE(no_token.is_valid());
  EXPECT_FALSE(empty.is_valid());
  EXPECT_EQ(no_email.provider(), "password");
  EXPECT_EQ(no_token.provider(), "google.com");
  EXPECT_EQ(empty.provider(), "");
  EXPECT_EQ(Completed(auth->SignInWithCredential(no_email)).error(), firebase::auth::kAuthErrorMissingEmail);
  EXPECT_EQ(Completed(auth->SignInWithCredential(no_password)).error(), firebase::auth::kAuthErrorMissingPassword);
  EXPECT_EQ(Completed(auth->SignInWithCredential(no_token)).error(), firebase::auth::kAuthErrorInvalidCredential);
  EXPECT_EQ(Completed(auth->SignInWithCredential(empty)).error(), firebase::auth::kAuthErrorInvalidCredential);
  Credential valid = EmailAuthProvider::GetCredential("carol@example.com", "secret-1");
  EXPECT_TRUE(valid.is_valid());
  Credential copy = valid;  // copies share the credential
  EXPECT_EQ(copy.provider(), "password");

  // The calls on a user need one.
  User none;
  EXPECT_EQ(Completed(none.LinkWithCredential(valid)).error(), firebase::auth::kAuthErrorNoSignedInUser);
  EXPECT_EQ(Completed(none.Reload()).error(), firebase::auth::kAuthErrorNoSignedInUser);
  EXPECT_EQ(Completed(none.SendEmailVerification()).error(), firebase::auth::kAuthErrorNoSignedInUser);
  User carol = Succeeded(auth->SignInWithCredential(copy));
  EXPECT_EQ(carol.email(), "carol@example.com");
  EXPECT_EQ(Completed(carol.LinkWithCredential(no_email)).error(), firebase::auth::kAuthErrorMissingEmail);
  EXPECT_EQ(Completed(carol.LinkWithCredential(valid)).error(), firebase::auth::kAuthErrorProviderAlreadyLinked);
}

// Twitter's token and secret, Apple's ID token with its raw nonce, a provider Identity Toolkit
// does not know (the SDK's kAuthErrorFailure, its integration test's "SignInWithCredential
// (OAuth)"), and phone sign-in, which is not available on Linux.
TEST_P(AuthAccountTest, TwitterAppleUnknownProvidersAndPhone) {
  using firebase::auth::OAuthProvider;
  using firebase::auth::PhoneAuthCredential;
  using firebase::auth::PhoneAuthProvider;
  using firebase::auth::TwitterAuthProvider;
  const json tess = {{"sub", "twitter-tess"}};
  Future<AuthResult> twitter =
      auth->SignInAndRetrieveDataWithCredential(TwitterAuthProvider::GetCredential(tess.dump().c_str(), "token secret"));
  const firebase::auth::AdditionalUserInfo& info = Succeeded(twitter).additional_user_info;
  EXPECT_EQ(info.provider_id, TwitterAuthProvider::kProviderId);
  ASSERT_EQ(info.profile.count(firebase::Variant("sub")), 1u);  // the provider's profile, as Variants
  EXPECT_STREQ(info.profile.at(firebase::Variant("sub")).string_value(), "twitter-tess");
  EXPECT_FALSE(info.updated_credential.is_valid());
  EXPECT_EQ(Completed(auth->SignInWithCredential(TwitterAuthProvider::GetCredential("token", nullptr))).error(),
            firebase::auth::kAuthErrorInvalidCredential);
  auth->SignOut();

  const json ann = {{"sub", "apple-ann"}, {"email", "ann@icloud.com"}, {"email_verified", true}};
  Credential with_nonce = OAuthProvider::GetCredential("apple.com", ann.dump().c_str(), "raw nonce", nullptr);
  EXPECT_EQ(Succeeded(auth->SignInWithCredential(with_nonce)).email(), "ann@icloud.com");
  Future<AuthResult> again = auth->SignInAndRetrieveDataWithCredential(with_nonce);
  const std::map<firebase::Variant, firebase::Variant>& profile = Succeeded(again).additional_user_info.profile;
  EXPECT_EQ(profile.at(firebase::Variant("email")), firebase::Variant("ann@icloud.com"));
  EXPECT_EQ(profile.at(firebase::Variant("email_verified")), firebase::Variant(true));
  EXPECT_FALSE(OAuthProvider::GetCredential("apple.com", nullptr, "raw nonce", "access token").is_valid());
  std::string uid = auth->current_user().uid();
  Future<firebase::auth::User> unknown =
      auth->SignInWithCredential(OAuthProvider::GetCredential("bad provider", ann.dump().c_str(), nullptr));
  EXPECT_EQ(Completed(unknown).error(), firebase::auth::kAuthErrorFailure);
  std::string message = unknown.error_message();
  EXPECT_NE(message.find("INVALID_CREDENTIAL_OR_PROVIDER_ID"), std::string::npos) << message;
  EXPECT_EQ(message.find("apple-ann"), std::string::npos) << message;  // the tokens are left out
  EXPECT_EQ(auth->current_user().uid(), uid);

  struct Listener : PhoneAuthProvider::Listener {
    void OnVerificationCompleted(PhoneAuthCredential) override { ++completed; }
    void OnVerificationFailed(const std::string& error) override { errors.push_back(error); }
    void OnCodeSent(const std::string&, const PhoneAuthProvider::ForceResendingToken&) override { ++sent; }
    int completed = 0, sent = 0;
    std::vector<std::string> errors;
  } listener;
  PhoneAuthProvider& phone = PhoneAuthProvider::GetInstance(auth);
  EXPECT_EQ(&phone, &PhoneAuthProvider::GetInstance(auth));
  firebase::auth::PhoneAuthOptions options;
  options.phone_number = "+12345556780";
  phone.VerifyPhoneNumber(options, &listener);
  ASSERT_EQ(listener.errors.size(), 1u);  // told before VerifyPhoneNumber returns
  EXPECT_NE(listener.errors[0].find("not available"), std::string::npos) << listener.errors[0];
  EXPECT_EQ(listener.completed + listener.sent, 0);
  PhoneAuthCredential code = phone.GetCredential("verification id", "123456");
  EXPECT_FALSE(code.is_valid());
  EXPECT_EQ(code.provider(), PhoneAuthProvider::kProviderId);
  EXPECT_EQ(code.sms_code(), "");
  EXPECT_EQ(Completed(auth->SignInWithCredential(code)).error(), firebase::auth::kAuthErrorApiNotAvailable);
  Future<firebase::auth::User> update = auth->current_user().UpdatePhoneNumberCredential(code);
  EXPECT_EQ(Completed(update).error(), firebase::auth::kAuthErrorApiNotAvailable);
  EXPECT_EQ(auth->current_user().UpdatePhoneNumberCredentialLastResult(), update);
  EXPECT_EQ(auth->current_user().uid(), uid);
}

// An account's sign-in methods; none for an unknown email, and none at all while the project
// protects against email enumeration (the emulator's config route, as the console's switch).
TEST_P(AuthAccountTest, FetchProvidersForEmail) {
  using FetchResult = firebase::auth::Auth::FetchProvidersResult;
  Succeeded(auth->CreateUserWithEmailAndPassword("ivy@example.com", "secret-1"));
  auth->SignOut();
  Future<FetchResult> found = auth->FetchProvidersForEmail("ivy@example.com");
  EXPECT_EQ(Succeeded(found).providers, std::vector<std::string>{"password"});
  EXPECT_EQ(auth->FetchProvidersForEmailLastResult(), found);
  EXPECT_EQ(Succeeded(auth->FetchProvidersForEmail("nobody@example.com")).providers, std::vector<std::string>{});
  EXPECT_EQ(Completed(auth->FetchProvidersForEmail("")).error(), firebase::auth::kAuthErrorMissingEmail);
  EXPECT_EQ(Completed(auth->FetchProvidersForEmail("not an email")).error(), firebase::auth::kAuthErrorInvalidEmail);
  std::string answer;
  ASSERT_EQ(emulator().Request("PATCH", "/emulator/v1/projects/demo-project/config",
                               R"({"emailPrivacyConfig": {"enableImprovedEmailPrivacy": true}})", &answer),
            200)
      << answer;
  EXPECT_EQ(Succeeded(auth->FetchProvidersForEmail("ivy@example.com")).providers, std::vector<std::string>{});
}

TEST_P(AuthAccountTest, ReauthenticateWithTheUsersOwnCredentialOnly) {
  Succeeded(auth->CreateUserWithEmailAndPassword("eve@example.com", "secret-1"));
  auth->SignOut();
  User frank = Succeeded(auth->CreateUserWithEmailAndPassword("frank@example.com", "secret-2")).user;
  Future<void> again = frank.Reauthenticate(EmailAuthProvider::GetCredential("frank@example.com", "secret-2"));
  EXPECT_EQ(Completed(again).error(), 0) << again.error_message();
  EXPECT_EQ(frank.ReauthenticateLastResult(), again);
  Future<AuthResult> data = frank.ReauthenticateAndRetrieveData(EmailAuthProvider::GetCredential("frank@example.com", "secret-2"));
  EXPECT_EQ(Succeeded(data).user.uid(), frank.uid());
  EXPECT_EQ(frank.ReauthenticateAndRetrieveDataLastResult(), data);
  EXPECT_EQ(Completed(frank.Reauthenticate(EmailAuthProvider::GetCredential("frank@example.com", "wrong-1"))).error(),
            firebase::auth::kAuthErrorWrongPassword);
  EXPECT_EQ(Completed(frank.Reauthenticate(EmailAuthProvider::GetCredential("eve@example.com", "secret-1"))).error(),
            firebase::auth::kAuthErrorUserMismatch);
  EXPECT_EQ(auth->current_user().uid(), frank.uid());  // the user stays
}

TEST_P(AuthAccountTest, EmailAndPasswordChanges) {
  Succeeded(auth->CreateUserWithEmailAndPassword("taken@example.com", "secret-1"));
  auth->SignOut();
  User gil = Succeeded(auth->CreateUserWithEmailAndPassword("gil@example.com", "secret-1")).user;

  Future<void> password = gil.UpdatePassword("secret-2");
  EXPECT_EQ(Completed(password).error(), 0) << password.error_message();
  EXPECT_EQ(gil.UpdatePasswordLastResult(), password);
  EXPECT_EQ(Completed(gil.UpdatePassword("123")).error(), firebase::auth::kAuthErrorWeakPassword);

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // UpdateEmail is deprecated in the SDK
  Future<void> email = gil.UpdateEmail("gil2@example.com");
  EXPECT_EQ(Completed(email).error(), 0) << email.error_message();
  EXPECT_EQ(gil.UpdateEmailLastResult(), email);
  EXPECT_EQ(Completed(gil.UpdateEmail("taken@example.com")).error(), firebase::auth::kAuthErrorEmailAlreadyInUse);
  EXPECT_EQ(Completed(gil.UpdateEmail("not-an-email")).error(), firebase::auth::kAuthErrorInvalidEmail);
#pragma GCC diagnostic pop
  EXPECT_EQ(gil.email(), "gil2@example.com");

  // The verify-before-update flow: the new address gets a code; applied, it becomes the email.
  Future<void> asked = gil.SendEmailVerificationBeforeUpdatingEmail("gil3@example.com");
  EXPECT_EQ(Completed(asked).error(), 0) << asked.error_message();
  EXPECT_EQ(gil.SendEmailVerificationBeforeUpdatingEmailLastResult(), asked);
  EXPECT_EQ(gil.email(), "gil2@example.com");
  std::string answer;
  EXPECT_EQ(Open(OobLink("VERIFY_AND_CHANGE_EMAIL", "gil2@example.com"), &answer), 200) << answer;
  std::string uid = gil.uid();
  auth->SignOut();
  EXPECT_EQ(Succeeded(auth->SignInWithEmailAndPassword("gil3@example.com", "secret-2")).user.uid(), uid);
  EXPECT_TRUE(auth->current_user().is_email_verified());
}

// Polls ready every 50 ms for up to 10 s: the wait below is for the wall clock itself.
bool WaitUntil(const std::function<bool()>& ready) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!ready()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

// Production's check with a short window: a sign-in older than 1 s is not recent (the
// firebase-tools flavor, as its Auth emulator, never asks).
TEST(AuthRecentLogin, SensitiveChangesNeedARecentSignIn) {
  Emulator emulator("production", {"--auth-recent-login", "1"});
  firebase::AppOptions options;
  options.set_api_key("test-api-key");
  options.set_project_id("demo-project");
  firebase::App* app = firebase::App::Create(options, "recent-login");
  firebase::auth::Auth* auth = firebase::auth::Auth::GetAuth(app);
  auth->UseEmulator(emulator.host(), static_cast<uint32_t>(emulator.port()));
  User user = Succeeded(auth->CreateUserWithEmailAndPassword("old@example.com", "secret-1")).user;
  const uint64_t signed_in = user.metadata().last_sign_in_timestamp;
  EXPECT_TRUE(WaitUntil([&] {
    auto now = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch());
    return static_cast<uint64_t>(now.count()) > signed_in + 1200;
  }));
  EXPECT_EQ(Completed(user.UpdatePassword("secret-2")).error(), firebase::auth::kAuthErrorRequiresRecentLogin);
  EXPECT_EQ(Completed(user.SendEmailVerificationBeforeUpdatingEmail("new@example.com")).error(),
            firebase::auth::kAuthErrorRequiresRecentLogin);
  EXPECT_EQ(Completed(user.Delete()).error(), firebase::auth::kAuthErrorRequiresRecentLogin);
  Future<void> again = user.Reauthenticate(EmailAuthProvider::GetCredential("old@example.com", "secret-1"));
  EXPECT_EQ(Completed(again).error(), 0) << again.error_message();
  EXPECT_EQ(Completed(user.UpdatePassword("secret-2")).error(), 0);
  delete auth;
  delete app;
}

}  // namespace
