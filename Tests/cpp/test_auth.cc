// test_auth.cc — firebase::auth against the bundled emulator's Auth routes (served on the
// storage port), and Storage sending the App's user (owner-only rules, both flavors).
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>

#include "firebase/auth.h"
#include "fixtures.h"

using firebase::Future;
using firebase::auth::Auth;
using firebase::auth::AuthResult;
using firebase::auth::User;

namespace {

std::string Base64Url(const std::string& bytes) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  unsigned bits = 0, value = 0;  // only the low bits matter
  for (unsigned char c : bytes) {
    value = ((value << 8) | c) & 0xFFFFu;
    bits += 8;
    while (bits >= 6) out += kAlphabet[(value >> (bits -= 6)) & 63];
  }
  if (bits > 0) out += kAlphabet[(value << (6 - bits)) & 63];
  return out;
}

std::string Base64UrlDecode(const std::string& text) {
  std::string out;
  unsigned bits = 0, value = 0;  // only the low bits matter
  for (char c : text) {
    int v = isupper(c) ? c - 'A' : islower(c) ? c - 'a' + 26 : isdigit(c) ? c - '0' + 52 : c == '-' ? 62 : c == '_' ? 63 : -1;
    if (v < 0) break;
    value = ((value << 6) | static_cast<unsigned>(v)) & 0xFFFFu;
    bits += 6;
    if (bits >= 8) out += static_cast<char>((value >> (bits -= 8)) & 255);
  }
  return out;
}

// The payload of a JWT, as JSON text.
std::string JwtPayload(const std::string& jwt) {
  size_t first = jwt.find('.'), second = jwt.find('.', first + 1);
  return Base64UrlDecode(jwt.substr(first + 1, second - first - 1));
}

// An unsigned custom token, as firebase-admin mints them for an emulator.
std::string CustomToken(const std::string& uid, const std::string& claims_json) {
  return Base64Url(R"({"alg":"none","typ":"JWT"})") + "." +
         Base64Url(R"({"aud":"https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit",)"
                   R"("iat":1700000000,"exp":4000000000,"iss":"admin@demo-project.iam.gserviceaccount.com",)"
                   R"("sub":"admin@demo-project.iam.gserviceaccount.com","uid":")" + uid + R"(","claims":)" +
                   claims_json + "}") +
         ".";
}

class CountingStateListener : public firebase::auth::AuthStateListener {
 public:
  void OnAuthStateChanged(Auth* auth) override {
    std::lock_guard<std::mutex> lock(mutex);
    uids.push_back(auth->current_user().uid());
    changed.notify_all();
  }
  // Waits until n calls were seen.
  bool WaitForCalls(size_t n) {
    std::unique_lock<std::mutex> lock(mutex);
    return changed.wait_for(lock, std::chrono::milliseconds(kFutureTimeoutMs), [&] { return uids.size() >= n; });
  }
  size_t Calls() {
    std::lock_guard<std::mutex> lock(mutex);
    return uids.size();
  }
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::string> uids;
};

class CountingTokenListener : public firebase::auth::IdTokenListener {
 public:
  void OnIdTokenChanged(Auth*) override {
    std::lock_guard<std::mutex> lock(mutex);
    calls++;
    changed.notify_all();
  }
  bool WaitForCalls(int n) {
    std::unique_lock<std::mutex> lock(mutex);
    return changed.wait_for(lock, std::chrono::milliseconds(kFutureTimeoutMs), [&] { return calls >= n; });
  }
  std::mutex mutex;
  std::condition_variable changed;
  int calls = 0;
};

const char kOwnerOnlyRules[] = R"(rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /users/{uid}/{file=**} {
      allow read, write: if request.auth.uid == uid;
    }
  }
})";

}  // namespace

class AuthTest : public FlavorAuthTest {};
INSTANTIATE_TEST_SUITE_P(Flavors, AuthTest, FBS_BOTH_FLAVORS);

TEST_P(AuthTest, GetAuthIsOnePerApp) {
  auto options_with_key = [this] { return app->options(); };
  EXPECT_EQ(Auth::GetAuth(app), auth);
  EXPECT_EQ(&auth->app(), app);
  EXPECT_FALSE(auth->current_user().is_valid());
  firebase::AppOptions no_key;
  no_key.set_project_id("demo-project");
  firebase::App* keyless = firebase::App::Create(no_key, "keyless");
  ASSERT_NE(keyless, nullptr);
  EXPECT_EQ(Auth::GetAuth(keyless), nullptr);  // an API key is required
  EXPECT_EQ(firebase::App::GetInstance("keyless"), keyless);
  EXPECT_EQ(firebase::App::Create(options_with_key(), "keyless"), keyless);  // the name is taken: that app
  EXPECT_STREQ(keyless->options().api_key(), "");
  delete keyless;
  EXPECT_EQ(firebase::App::GetInstance("keyless"), nullptr);
  firebase::App* default_app = firebase::App::Create(app->options());  // kDefaultAppName
  ASSERT_NE(default_app, nullptr);
  EXPECT_EQ(firebase::App::GetInstance(), default_app);
  EXPECT_STREQ(default_app->name(), firebase::kDefaultAppName);
  auto apps = firebase::App::GetApps();
  EXPECT_NE(std::find(apps.begin(), apps.end(), app), apps.end());
  EXPECT_NE(std::find(apps.begin(), apps.end(), default_app), apps.end());
  delete default_app;
  EXPECT_EQ(firebase::App::GetInstance(), nullptr);
  auth->UseEmulator("bad host", 1);  // refused on stderr; the emulator set before stays
  EXPECT_EQ(Succeeded(auth->SignInAnonymously()).user.is_valid(), true);
}

TEST_P(AuthTest, AnonymousSignInAndIdToken) {
  Future<AuthResult> signing_in = auth->SignInAnonymously();
  const AuthResult& result = Succeeded(signing_in);
  EXPECT_EQ(auth->SignInAnonymouslyLastResult(), signing_in);
  const User& user = result.user;
  ASSERT_TRUE(user.is_valid());
  EXPECT_TRUE(user.is_anonymous());
  EXPECT_FALSE(user.uid().empty());
  EXPECT_EQ(user.email(), "");
  EXPECT_EQ(user.provider_id(), "firebase");
  EXPECT_EQ(result.additional_user_info.provider_id, "anonymous");
  EXPECT_FALSE(result.credential.is_valid());
  User current = auth->current_user();
  EXPECT_EQ(current.uid(), user.uid());
  EXPECT_EQ(current, user);

  Future<std::string> token = current.GetToken(false);
  const std::string& jwt = Succeeded(token);
  EXPECT_EQ(current.GetTokenLastResult(), token);
  EXPECT_NE(JwtPayload(jwt).find("\"user_id\":\"" + user.uid() + "\""), std::string::npos) << JwtPayload(jwt);
  const std::string& refreshed = Succeeded(current.GetToken(true));
  EXPECT_NE(JwtPayload(refreshed).find(user.uid()), std::string::npos);

  auth->SignOut();
  EXPECT_FALSE(auth->current_user().is_valid());
  Future<std::string> no_token = current.GetToken(false);
  EXPECT_EQ(Completed(no_token).error(), firebase::auth::kAuthErrorNoSignedInUser);
}

// As the desktop SDK: the signed-in user is kept for the next run (an App and Auth made again
// with the same name and API key start signed in, and can get a token), in
// XDG_CONFIG_HOME/fbstorage-cpp, mode 0600; signing out removes it.
TEST_P(AuthTest, TheSignedInUserIsKeptForTheNextRun) {
  struct Run {
    firebase::App* app;
    Auth* auth;
  };
  auto start = [&](const char* name) {
    Run run{firebase::App::Create(app->options(), name), nullptr};
    run.auth = Auth::GetAuth(run.app);
    run.auth->UseEmulator(emulator().host(), static_cast<uint32_t>(emulator().port()));
    return run;
  };
  auto end = [](Run run) {
    delete run.auth;
    delete run.app;
  };
  Run first = start("kept-session");
  std::string uid = Succeeded(first.auth->SignInAnonymously()).user.uid();
  end(first);

  Run other = start("another-app");  // another app keeps its own session
  EXPECT_FALSE(other.auth->current_user().is_valid());
  end(other);

  Run second = start("kept-session");
  EXPECT_TRUE(second.auth->current_user().is_valid());
  EXPECT_EQ(second.auth->current_user().uid(), uid);
  EXPECT_TRUE(second.auth->current_user().is_anonymous());
  Future<std::string> token = second.auth->current_user().GetToken(false);  // a refresh: the session is live
  EXPECT_FALSE(Succeeded(token).empty());
  // The files of these two apps (other tests' apps keep theirs in the same directory).
  auto files = [] {
    std::vector<std::filesystem::directory_entry> found;
    std::string directory = std::string(std::getenv("XDG_CONFIG_HOME")) + "/fbstorage-cpp";
    for (const auto& entry : std::filesystem::directory_iterator(directory)) {
      std::string name = entry.path().filename().string();
      if (name.rfind("kept-session-", 0) == 0 || name.rfind("another-app-", 0) == 0) found.push_back(entry);
    }
    return found;
  };
  ASSERT_EQ(files().size(), 1u);
  EXPECT_EQ(files()[0].path().filename().string().rfind("kept-session-", 0), 0u);
  EXPECT_EQ(files()[0].status().permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  second.auth->SignOut();
  end(second);
  EXPECT_TRUE(files().empty());

  Run third = start("kept-session");
  EXPECT_FALSE(third.auth->current_user().is_valid());
  end(third);
}

// As the SDK's User (its integration test's TestCopyUser and TestRetainedUser): a view of the
// Auth's current user, whoever that is; copies too; a default User is invalid for good.
TEST_P(AuthTest, AUserShowsWhoeverIsSignedInNow) {
  User retained = Succeeded(auth->SignInAnonymously()).user;
  User copy(retained);
  User assigned;
  assigned = copy;
  const User never;
  EXPECT_TRUE(retained.is_valid() && copy.is_valid() && assigned.is_valid() && retained.is_anonymous());
  EXPECT_FALSE(never.is_valid());
  EXPECT_EQ(copy.uid(), retained.uid());

  auth->SignOut();
  for (const User* user : {&retained, &copy, &assigned}) {
    EXPECT_FALSE(user->is_valid());
    EXPECT_EQ(user->uid(), "");
    EXPECT_FALSE(user->is_anonymous());
    EXPECT_EQ(user->metadata().creation_timestamp, 0u);
  }
  EXPECT_EQ(Completed(retained.Reload()).error(), firebase::auth::kAuthErrorNoSignedInUser);

  User bea = Succeeded(auth->CreateUserWithEmailAndPassword("bea@example.com", "correct horse")).user;
  for (const User* user : {&retained, &copy, &assigned}) {
    EXPECT_TRUE(user->is_valid());
    EXPECT_EQ(user->uid(), bea.uid());
    EXPECT_EQ(user->email(), "bea@example.com");
    EXPECT_FALSE(user->is_anonymous());
  }
  EXPECT_TRUE(retained == bea);
  EXPECT_FALSE(never.is_valid());
  EXPECT_EQ(never.uid(), "");

  // Its calls act on the current user: this deletes bea's account.
  Future<void> deleted = retained.Delete();
  EXPECT_EQ(Completed(deleted).error(), 0) << deleted.error_message();
  EXPECT_FALSE(auth->current_user().is_valid());
  EXPECT_FALSE(bea.is_valid());
  EXPECT_EQ(Completed(auth->SignInWithEmailAndPassword("bea@example.com", "correct horse")).error(),
            firebase::auth::kAuthErrorUserNotFound);
}

TEST_P(AuthTest, EmailPasswordAccountsAndTheirErrors) {
  Future<AuthResult> created = auth->CreateUserWithEmailAndPassword("ada@example.com", "correct horse");
  const User& ada = Succeeded(created).user;
  EXPECT_EQ(auth->CreateUserWithEmailAndPasswordLastResult(), created);
  EXPECT_EQ(ada.email(), "ada@example.com");
  EXPECT_FALSE(ada.is_anonymous());
  EXPECT_FALSE(ada.is_email_verified());
  EXPECT_GT(ada.metadata().last_sign_in_timestamp, 1600000000000u);
  std::string uid = ada.uid();
  auth->SignOut();

  Future<AuthResult> signed_in = auth->SignInWithEmailAndPassword("ada@example.com", "correct horse");
  EXPECT_EQ(Succeeded(signed_in).user.uid(), uid);
  EXPECT_EQ(auth->SignInWithEmailAndPasswordLastResult(), signed_in);

  struct Case {
    Future<AuthResult> future;
    int error;
  } cases[] = {
      {auth->CreateUserWithEmailAndPassword("ada@example.com", "another one"), firebase::auth::kAuthErrorEmailAlreadyInUse},
      {auth->CreateUserWithEmailAndPassword("bob@example.com", "123"), firebase::auth::kAuthErrorWeakPassword},
      {auth->CreateUserWithEmailAndPassword("not-an-email", "long enough"), firebase::auth::kAuthErrorInvalidEmail},
      {auth->SignInWithEmailAndPassword("ada@example.com", "wrong password"), firebase::auth::kAuthErrorWrongPassword},
      {auth->SignInWithEmailAndPassword("nobody@example.com", "whatever1"), firebase::auth::kAuthErrorUserNotFound},
  };
  for (auto& c : cases) {
    EXPECT_EQ(Completed(c.future).error(), c.error) << c.future.error_message();
    EXPECT_FALSE(c.future.result()->user.is_valid());
  }
  EXPECT_EQ(auth->current_user().uid(), ada.uid());  // a failed sign-in keeps the user

  // Deleting the account signs out; the account is gone.
  User current = auth->current_user();
  Future<void> deleted = current.Delete();
  EXPECT_EQ(Completed(deleted).error(), 0);
  EXPECT_EQ(current.DeleteLastResult(), deleted);
  EXPECT_FALSE(auth->current_user().is_valid());
  EXPECT_EQ(Completed(auth->SignInWithEmailAndPassword("ada@example.com", "correct horse")).error(),
            firebase::auth::kAuthErrorUserNotFound);
}

// The C++ guides' "Update a user's profile": nullptr keeps a field, "" deletes it.
TEST_P(AuthTest, UpdateUserProfileSetsKeepsAndDeletesFields) {
  User none;
  User::UserProfile profile;
  profile.display_name = "Jane Q. User";
  EXPECT_EQ(Completed(none.UpdateUserProfile(profile)).error(), firebase::auth::kAuthErrorNoSignedInUser);

  const User& jane = Succeeded(auth->CreateUserWithEmailAndPassword("jane@example.com", "correct horse")).user;
  profile.photo_url = "https://example.com/jane-q-user/profile.jpg";
  User user = auth->current_user();
  Future<void> updated = user.UpdateUserProfile(profile);
  EXPECT_EQ(Completed(updated).error(), 0) << updated.error_message();
  EXPECT_EQ(user.UpdateUserProfileLastResult(), updated);
  EXPECT_EQ(auth->current_user().uid(), jane.uid());
  EXPECT_EQ(auth->current_user().display_name(), "Jane Q. User");
  EXPECT_EQ(auth->current_user().photo_url(), "https://example.com/jane-q-user/profile.jpg");

  User::UserProfile remove_photo;
  remove_photo.photo_url = "";
  EXPECT_EQ(Completed(auth->current_user().UpdateUserProfile(remove_photo)).error(), 0);
  EXPECT_EQ(auth->current_user().display_name(), "Jane Q. User");
  EXPECT_EQ(auth->current_user().photo_url(), "");

  User::UserProfile bad;
  bad.display_name = "line\nbreak";
  EXPECT_EQ(Completed(auth->current_user().UpdateUserProfile(bad)).error(), firebase::auth::kAuthErrorInvalidParameter);
}

TEST_P(AuthTest, CustomTokenWithClaims) {
  Future<AuthResult> signed_in = auth->SignInWithCustomToken(CustomToken("custom-uid", R"({"role":"editor"})").c_str());
  const User& user = Succeeded(signed_in).user;
  EXPECT_EQ(auth->SignInWithCustomTokenLastResult(), signed_in);
  EXPECT_EQ(user.uid(), "custom-uid");
  EXPECT_FALSE(user.is_anonymous());
  EXPECT_EQ(signed_in.result()->additional_user_info.provider_id, "custom");
  std::string payload = JwtPayload(Succeeded(auth->current_user().GetToken(false)));
  EXPECT_NE(payload.find("\"role\":\"editor\""), std::string::npos) << payload;
  Future<AuthResult> bad = auth->SignInWithCustomToken("not a token");
  EXPECT_EQ(Completed(bad).error(), firebase::auth::kAuthErrorInvalidCustomToken);
  Future<AuthResult> empty = auth->SignInWithCustomToken(nullptr);
  EXPECT_EQ(Completed(empty).error(), firebase::auth::kAuthErrorInvalidParameter);  // refused at once
}

TEST_P(AuthTest, ListenersRunOnAddAndOnChangesUntilRemoved) {
  CountingStateListener state;
  CountingTokenListener tokens;
  auth->AddAuthStateListener(&state);
  auth->AddAuthStateListener(&state);  // once per auth
  auth->AddIdTokenListener(&tokens);
  ASSERT_TRUE(state.WaitForCalls(1));  // at registration, signed out
  ASSERT_TRUE(tokens.WaitForCalls(1));
  std::string uid = Succeeded(auth->SignInAnonymously()).user.uid();
  ASSERT_TRUE(state.WaitForCalls(2));
  ASSERT_TRUE(tokens.WaitForCalls(2));
  Succeeded(auth->current_user().GetToken(true));  // a new ID token, the same user
  ASSERT_TRUE(tokens.WaitForCalls(3));
  auth->SignOut();
  ASSERT_TRUE(state.WaitForCalls(3));
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    EXPECT_EQ(state.uids, (std::vector<std::string>{"", uid, ""}));
  }

  auth->RemoveAuthStateListener(&state);
  {
    CountingStateListener witness;  // still registered: shows when the next change was delivered
    auth->AddAuthStateListener(&witness);
    ASSERT_TRUE(witness.WaitForCalls(1));
    Succeeded(auth->SignInAnonymously());
    ASSERT_TRUE(witness.WaitForCalls(2));
    EXPECT_EQ(state.Calls(), 3u);  // removed: not called again
  }  // witness's destructor removed it from the auth
  auth->SignOut();
  auth->RemoveIdTokenListener(&tokens);
  auth->RemoveIdTokenListener(&tokens);  // removing twice does nothing
}

TEST_P(AuthTest, StorageSendsTheAppsUser) {
  emulator().SetRules(kOwnerOnlyRules);
  auto* later = firebase::storage::Storage::GetInstance(app, "gs://later-bucket");  // after GetAuth
  ASSERT_NE(later, nullptr);
  later->UseEmulator(emulator().host(), emulator().port());
  auto denied = [](const Future<firebase::storage::Metadata>& f) { return Completed(f).error(); };

  EXPECT_NE(denied(storage->GetReference("users/nobody/a.txt").PutBytes("x", 1)), 0);  // signed out
  std::string uid = Succeeded(auth->SignInAnonymously()).user.uid();
  for (auto* s : {storage, later}) {
    Succeeded(s->GetReference("users/" + uid + "/a.txt").PutBytes("mine", 4));
    EXPECT_EQ(denied(s->GetReference("users/someone-else/a.txt").PutBytes("x", 1)), firebase::storage::kErrorUnauthorized);
  }
  EXPECT_EQ(Succeeded(storage->GetReference("users/" + uid + "/a.txt").GetMetadata()).size_bytes(), 4);
  auth->SignOut();
  EXPECT_NE(denied(storage->GetReference("users/" + uid + "/b.txt").PutBytes("x", 1)), 0);
  delete later;

  // A Storage created before the Auth uses it too; deleting the Auth detaches it.
  emulator().Reset();
  emulator().SetRules(kOwnerOnlyRules);
  firebase::AppOptions options = app->options();
  firebase::App* second = firebase::App::Create(options, "storage-first");
  auto* early = firebase::storage::Storage::GetInstance(second);
  early->UseEmulator(emulator().host(), emulator().port());
  Auth* second_auth = Auth::GetAuth(second);
  second_auth->UseEmulator(emulator().host(), static_cast<uint32_t>(emulator().port()));
  std::string second_uid = Succeeded(second_auth->SignInAnonymously()).user.uid();
  Succeeded(early->GetReference("users/" + second_uid + "/c.txt").PutBytes("c", 1));
  delete second_auth;
  EXPECT_NE(denied(early->GetReference("users/" + second_uid + "/d.txt").PutBytes("d", 1)), 0);
  delete early;
  delete second;
}
