// auth.cc — firebase::auth::Auth: one fbstorage::Auth per App, its sign-in flows as Futures,
// its listeners, and the hook that makes the App's storages send its user's ID token.
#include "firebase/auth.h"

#include <algorithm>

#include "auth_internal.h"

namespace firebase {
namespace auth {

using firebase::internal::RunOperation;

namespace internal {

int MapError(int fbs_code) {
  switch (fbs_code) {
    case FBS_OK: return kAuthErrorNone;
    case FBS_ERR_AUTH_INVALID_API_KEY: return kAuthErrorInvalidApiKey;
    case FBS_ERR_AUTH_INVALID_EMAIL: return kAuthErrorInvalidEmail;
    case FBS_ERR_AUTH_WRONG_PASSWORD: return kAuthErrorWrongPassword;
    case FBS_ERR_AUTH_USER_NOT_FOUND: return kAuthErrorUserNotFound;
    case FBS_ERR_AUTH_EMAIL_ALREADY_IN_USE: return kAuthErrorEmailAlreadyInUse;
    case FBS_ERR_AUTH_WEAK_PASSWORD: return kAuthErrorWeakPassword;
    case FBS_ERR_AUTH_USER_DISABLED: return kAuthErrorUserDisabled;
    case FBS_ERR_AUTH_INVALID_CUSTOM_TOKEN: return kAuthErrorInvalidCustomToken;
    case FBS_ERR_AUTH_TOO_MANY_REQUESTS: return kAuthErrorTooManyRequests;
    case FBS_ERR_AUTH_OPERATION_NOT_ALLOWED: return kAuthErrorOperationNotAllowed;
    case FBS_ERR_AUTH_USER_TOKEN_EXPIRED: return kAuthErrorUserTokenExpired;
    case FBS_ERR_AUTH_INVALID_REFRESH_TOKEN: return kAuthErrorInvalidUserToken;
    case FBS_ERR_AUTH_NO_USER: return kAuthErrorNoSignedInUser;
    case FBS_ERR_AUTH_REQUIRES_RECENT_LOGIN: return kAuthErrorRequiresRecentLogin;
    case FBS_ERR_AUTH_CREDENTIAL_ALREADY_IN_USE: return kAuthErrorCredentialAlreadyInUse;
    case FBS_ERR_AUTH_PROVIDER_ALREADY_LINKED: return kAuthErrorProviderAlreadyLinked;
    case FBS_ERR_AUTH_INVALID_ACTION_CODE: return kAuthErrorInvalidActionCode;
    case FBS_ERR_AUTH_EXPIRED_ACTION_CODE: return kAuthErrorExpiredActionCode;
    case FBS_ERR_AUTH_INVALID_CREDENTIAL: return kAuthErrorInvalidCredential;
    case FBS_ERR_AUTH_ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL: return kAuthErrorAccountExistsWithDifferentCredentials;
    case FBS_ERR_AUTH_USER_MISMATCH: return kAuthErrorUserMismatch;
    case FBS_ERR_AUTH_INVALID_USER_TOKEN: return kAuthErrorInvalidUserToken;
    case FBS_ERR_RETRY_LIMIT_EXCEEDED: return kAuthErrorNetworkRequestFailed;
    case FBS_ERR_CANCELLED: return kAuthErrorCancelled;
    case FBS_ERR_INVALID_ARGUMENT: return kAuthErrorInvalidParameter;
    default: return kAuthErrorFailure;
  }
}

const char kAuthDeletedMessage[] = "the Auth, or its App, was deleted";

std::shared_ptr<fbstorage::Auth> AuthInternal::core() const {
  std::lock_guard<std::mutex> lock(core_mutex_);
  return core_;
}

}  // namespace internal

namespace {

// Guards the listeners' lists of the Auths they are added to.
std::mutex& ListenersMutex() {
  static std::mutex mutex;
  return mutex;
}

// A sign-in flow as a Future<AuthResult>; fails once the Auth is torn down.
template <class Start>
Future<AuthResult> SignIn(const std::shared_ptr<internal::AuthInternal>& auth, Start start) {
  auto core = auth->core();
  if (!core) return firebase::internal::FailedFuture<AuthResult>(kAuthErrorFailure, internal::kAuthDeletedMessage);
  std::weak_ptr<internal::AuthInternal> weak = auth;
  return RunOperation<AuthResult, fbstorage::UserView>(
      internal::MapError, [&](auto done) { start(*core, done); },
      [weak](const fbstorage::UserView& user) { return internal::MakeAuthResult(weak, user); });
}

template <class Start>
Future<AuthResult> SignIn(const std::shared_ptr<internal::AuthInternal>& auth,
                          firebase::internal::LastResult<AuthResult>& last, Start start) {
  return last.set(SignIn(auth, start));
}

// Signs in with a credential; an invalid one fails at once with the error its provider noted.
Future<AuthResult> SignInWith(const std::shared_ptr<internal::AuthInternal>& auth, const Credential& credential) {
  int error = 0;
  std::string message;
  const fbstorage::Credential* core = internal::CoreCredential(credential, &error, &message);
  if (!core) return firebase::internal::FailedFuture<AuthResult>(error, message);
  return SignIn(auth, [core](fbstorage::Auth& a, auto done) { a.sign_in_with_credential_async(*core, done); });
}

void Report(const char* what, const char* message) {
  firebase::internal::Log(kLogLevelWarning, "firebase::auth::Auth::%s: %s", what, message);
}

// Runs call(core), or says on stderr that the Auth is torn down; a failure goes to stderr too.
template <class Call>
void WithCore(const internal::AuthInternal& auth, const char* what, Call call) {
  auto core = auth.core();
  if (!core) return Report(what, internal::kAuthDeletedMessage);
  try {
    call(*core);
  } catch (const fbstorage::Error& e) {
    Report(what, e.what());
  }
}

// Removes one listener from the core and from the listener's list of Auths.
template <class L>
void RemoveListener(internal::AuthInternal& auth, L* listener, std::map<L*, fbstorage::Auth::ListenerId>& ids,
                    std::vector<Auth*>& auths) {
  fbstorage::Auth::ListenerId id;
  {
    std::lock_guard<std::mutex> lock(auth.mutex);
    auto found = ids.find(listener);
    if (found == ids.end()) return;
    id = found->second;
    ids.erase(found);
  }
  {
    std::lock_guard<std::mutex> lock(ListenersMutex());
    auths.erase(std::remove(auths.begin(), auths.end(), auth.owner), auths.end());
  }
  // remove_listener waits for a running call of it (unless called from one).
  WithCore(auth, "RemoveListener", [id](fbstorage::Auth& core) { core.remove_listener(id); });
}

template <class L>
std::vector<L*> Listeners(internal::AuthInternal& auth, const std::map<L*, fbstorage::Auth::ListenerId>& ids) {
  std::lock_guard<std::mutex> lock(auth.mutex);
  std::vector<L*> listeners;
  for (auto& entry : ids) listeners.push_back(entry.first);
  return listeners;
}

}  // namespace

void internal::AuthInternal::TearDown() {
  for (auto* listener : Listeners(*this, state_listeners)) RemoveListener(*this, listener, state_listeners, listener->auths_);
  for (auto* listener : Listeners(*this, id_token_listeners))
    RemoveListener(*this, listener, id_token_listeners, listener->auths_);
  std::shared_ptr<fbstorage::Auth> core;
  {
    std::lock_guard<std::mutex> lock(core_mutex_);
    core.swap(core_);
  }
  // Freed here, out of the lock (unless a call on another thread holds it a moment longer).
}

Auth::Auth(App* app, std::shared_ptr<internal::AuthInternal> internal) : app_(app), internal_(std::move(internal)) {}

Auth* Auth::GetAuth(App* app, InitResult* init_result_out) {
  if (init_result_out) *init_result_out = kInitResultSuccess;
  if (!app) return nullptr;
  firebase::internal::AppInternal& registry = *app->internal();
  std::lock_guard<std::mutex> lock(registry.mutex);
  if (registry.auth) return static_cast<Auth*>(registry.auth);
  Auth* auth = new Auth(app, nullptr);
  try {
    auth->internal_ = std::make_shared<internal::AuthInternal>(auth, app, app->internal());
  } catch (const fbstorage::Error& e) {
    Report("GetAuth", e.what());
    delete auth;
    return nullptr;
  }
  // The signed-in user of the last run, as the desktop SDK restores it from the system's secret
  // store; a file that cannot be read is reported and left, and this run keeps nothing.
  WithCore(*auth->internal_, "GetAuth",
           [&](fbstorage::Auth& core) { core.set_persistence_for_app("fbstorage-cpp", app->name()); });
  // The app's storages, present and future, send this auth's user (fbs_storage_use_auth).
  std::weak_ptr<internal::AuthInternal> weak = auth->internal_;
  registry.attach_auth = [weak](fbstorage::Storage& storage) {
    auto alive = weak.lock();
    if (auto core = alive ? alive->core() : nullptr) storage.use_auth(core.get());
  };
  for (auto& entry : registry.storages)
    if (auto core = entry.second.core.lock()) registry.attach_auth(*core);
  registry.auth = auth;
  registry.invalidators[auth] = [weak] {
    if (auto alive = weak.lock()) alive->TearDown();
  };
  return auth;
}

Auth::~Auth() {
  if (!internal_) return;  // GetAuth failed to make it
  firebase::internal::AppInternal& registry = *internal_->registry;
  {
    std::lock_guard<std::mutex> lock(registry.mutex);
    if (registry.auth == this) {
      registry.attach_auth = nullptr;
      registry.auth = nullptr;
      for (auto& entry : registry.storages) {
        auto core = entry.second.core.lock();
        try {
          if (core) core->use_auth(nullptr);
        } catch (const fbstorage::Error& e) {
          Report("~Auth", e.what());
        }
      }
    }
    registry.invalidators.erase(this);
  }
  internal_->TearDown();
}

App& Auth::app() { return *app_; }

User Auth::current_user() {
  auto core = internal_->core();
  if (!core) return User();
  try {
    auto user = core->current_user();
    return internal::MakeUser(internal_, user ? &*user : nullptr);
  } catch (const fbstorage::Error& e) {
    Report("current_user", e.what());
    return User();
  }
}

Future<AuthResult> Auth::SignInAnonymously() {
  return SignIn(internal_, internal_->anonymous_result,
                [](fbstorage::Auth& auth, auto done) { auth.sign_in_anonymously_async(done); });
}

Future<AuthResult> Auth::SignInWithEmailAndPassword(const char* email, const char* password) {
  std::string e = email ? email : "", p = password ? password : "";
  return SignIn(internal_, internal_->email_result,
                [&](fbstorage::Auth& auth, auto done) { auth.sign_in_with_email_async(e, p, done); });
}

Future<AuthResult> Auth::CreateUserWithEmailAndPassword(const char* email, const char* password) {
  std::string e = email ? email : "", p = password ? password : "";
  return SignIn(internal_, internal_->create_user_result,
                [&](fbstorage::Auth& auth, auto done) { auth.create_user_async(e, p, done); });
}

Future<AuthResult> Auth::SignInWithCustomToken(const char* custom_token) {
  std::string token = custom_token ? custom_token : "";
  return SignIn(internal_, internal_->custom_token_result,
                [&](fbstorage::Auth& auth, auto done) { auth.sign_in_with_custom_token_async(token, done); });
}

Future<User> Auth::SignInWithCredential(const Credential& credential) {
  firebase::internal::Promise<User> promise;
  SignInWith(internal_, credential).OnCompletion([promise](const Future<AuthResult>& done) {
    if (done.error()) return promise.Fail(done.error(), done.error_message());
    promise.Succeed(done.result()->user);
  });
  return promise.future();
}

Future<AuthResult> Auth::SignInAndRetrieveDataWithCredential(const Credential& credential) {
  return internal_->credential_result.set(SignInWith(internal_, credential));
}

Future<AuthResult> Auth::SignInAndRetrieveDataWithCredentialLastResult() const {
  return internal_->credential_result.get();
}

Future<void> Auth::SendPasswordResetEmail(const char* email) {
  auto core = internal_->core();
  if (!core)
    return internal_->password_reset_result.set(
        firebase::internal::FailedFuture<void>(kAuthErrorFailure, internal::kAuthDeletedMessage));
  std::string address = email ? email : "";
  return internal_->password_reset_result.set(RunOperation<void, void>(
      internal::MapError, [&](auto done) { core->send_password_reset_email_async(address, done); }, [] {}));
}

Future<void> Auth::SendPasswordResetEmailLastResult() const { return internal_->password_reset_result.get(); }

Future<Auth::FetchProvidersResult> Auth::FetchProvidersForEmail(const char* email) {
  auto core = internal_->core();
  auto& last = internal_->fetch_providers_result;
  if (!core)
    return last.set(firebase::internal::FailedFuture<FetchProvidersResult>(kAuthErrorFailure, internal::kAuthDeletedMessage));
  if (!email || !*email)
    return last.set(firebase::internal::FailedFuture<FetchProvidersResult>(kAuthErrorMissingEmail, "the email address is empty"));
  std::string address = email;
  return last.set(RunOperation<FetchProvidersResult, std::vector<std::string>>(
      internal::MapError, [&](auto done) { core->fetch_sign_in_methods_async(address, done); },
      [](const std::vector<std::string>& methods) {
        FetchProvidersResult result;
        result.providers = methods;
        return result;
      }));
}

Future<Auth::FetchProvidersResult> Auth::FetchProvidersForEmailLastResult() const {
  return internal_->fetch_providers_result.get();
}

Future<AuthResult> Auth::SignInAnonymouslyLastResult() const { return internal_->anonymous_result.get(); }
Future<AuthResult> Auth::SignInWithEmailAndPasswordLastResult() const { return internal_->email_result.get(); }
Future<AuthResult> Auth::CreateUserWithEmailAndPasswordLastResult() const { return internal_->create_user_result.get(); }
Future<AuthResult> Auth::SignInWithCustomTokenLastResult() const { return internal_->custom_token_result.get(); }

void Auth::SignOut() {
  WithCore(*internal_, "SignOut", [](fbstorage::Auth& core) { core.sign_out(); });
}

void Auth::UseEmulator(std::string host, uint32_t port) {
  WithCore(*internal_, "UseEmulator",
           [&](fbstorage::Auth& core) { core.use_emulator(host, port > 65535 ? -1 : static_cast<int>(port)); });
}

namespace {

// Adds a listener once per auth: registers it with the core and notes the auth in the
// listener (its destructor removes it from every auth it was added to).
template <class L, class Notify>
void AddListener(internal::AuthInternal& auth, L* listener, std::map<L*, fbstorage::Auth::ListenerId>& ids,
                 fbstorage::Auth::ListenerId (fbstorage::Auth::*add)(fbstorage::Auth::Listener),
                 std::vector<Auth*>& auths, Notify notify) {
  if (!listener) return;
  {
    std::lock_guard<std::mutex> lock(auth.mutex);
    if (ids.count(listener)) return;
  }
  Auth* owner = auth.owner;
  WithCore(auth, "AddListener", [&](fbstorage::Auth& core) {
    fbstorage::Auth::ListenerId id =
        (core.*add)([owner, listener, notify](const fbstorage::UserView*) { notify(listener, owner); });
    {
      std::lock_guard<std::mutex> lock(auth.mutex);
      ids[listener] = id;
    }
    std::lock_guard<std::mutex> lock(ListenersMutex());
    auths.push_back(owner);
  });
}

}  // namespace

void Auth::AddAuthStateListener(AuthStateListener* listener) {
  if (!listener) return;
  AddListener(*internal_, listener, internal_->state_listeners, &fbstorage::Auth::add_state_listener, listener->auths_,
              [](AuthStateListener* l, Auth* auth) { l->OnAuthStateChanged(auth); });
}

void Auth::RemoveAuthStateListener(AuthStateListener* listener) {
  if (listener) RemoveListener(*internal_, listener, internal_->state_listeners, listener->auths_);
}

void Auth::AddIdTokenListener(IdTokenListener* listener) {
  if (!listener) return;
  AddListener(*internal_, listener, internal_->id_token_listeners, &fbstorage::Auth::add_id_token_listener,
              listener->auths_, [](IdTokenListener* l, Auth* auth) { l->OnIdTokenChanged(auth); });
}

void Auth::RemoveIdTokenListener(IdTokenListener* listener) {
  if (listener) RemoveListener(*internal_, listener, internal_->id_token_listeners, listener->auths_);
}

namespace {
template <class L>
std::vector<Auth*> AuthsOf(std::vector<Auth*>& auths) {
  std::lock_guard<std::mutex> lock(ListenersMutex());
  return auths;
}
}  // namespace

AuthStateListener::~AuthStateListener() {
  for (Auth* auth : AuthsOf<AuthStateListener>(auths_)) auth->RemoveAuthStateListener(this);
}

IdTokenListener::~IdTokenListener() {
  for (Auth* auth : AuthsOf<IdTokenListener>(auths_)) auth->RemoveIdTokenListener(this);
}

}  // namespace auth
}  // namespace firebase
