// auth.cc — firebase::auth::Auth: one fbstorage::Auth per App, its sign-in flows as Futures,
// its listeners, and the hook that makes the App's storages send its user's ID token.
#include "firebase/auth.h"

#include <algorithm>
#include <cstdio>

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
    case FBS_ERR_RETRY_LIMIT_EXCEEDED: return kAuthErrorNetworkRequestFailed;
    case FBS_ERR_CANCELLED: return kAuthErrorCancelled;
    default: return kAuthErrorFailure;
  }
}

}  // namespace internal

namespace {

// Guards the listeners' lists of the Auths they are added to.
std::mutex& ListenersMutex() {
  static std::mutex mutex;
  return mutex;
}

// A sign-in flow as a Future<AuthResult>.
template <class Start>
Future<AuthResult> SignIn(const std::shared_ptr<internal::AuthInternal>& auth,
                          firebase::internal::LastResult<AuthResult>& last, Start start) {
  std::weak_ptr<internal::AuthInternal> weak = auth;
  return last.set(RunOperation<AuthResult, fbstorage::UserView>(
      internal::MapError, [&](auto done) { start(auth->auth, done); },
      [weak](const fbstorage::UserView& user) {
        AuthResult result;
        result.user = internal::MakeUser(weak.lock(), &user);
        result.additional_user_info.provider_id = user.sign_in_provider();
        return result;
      }));
}

void Report(const char* what, const fbstorage::Error& e) {
  std::fprintf(stderr, "firebase::auth::Auth::%s: %s\n", what, e.what());
}

}  // namespace

Auth::Auth(App* app, std::shared_ptr<internal::AuthInternal> internal) : app_(app), internal_(std::move(internal)) {}

Auth* Auth::GetAuth(App* app, InitResult* init_result_out) {
  if (init_result_out) *init_result_out = kInitResultSuccess;
  if (!app) return nullptr;
  firebase::internal::AppInternal* registry = app->internal();
  std::lock_guard<std::mutex> lock(registry->mutex);
  if (registry->auth) return static_cast<Auth*>(registry->auth);
  std::shared_ptr<internal::AuthInternal> internal;
  try {
    internal = std::make_shared<internal::AuthInternal>(app, app->options().api_key(), app->options().project_id());
  } catch (const fbstorage::Error& e) {
    Report("GetAuth", e);
    return nullptr;
  }
  Auth* auth = new Auth(app, internal);
  // The app's storages, present and future, send this auth's user (fbs_storage_use_auth).
  std::weak_ptr<internal::AuthInternal> weak = internal;
  registry->attach_auth = [weak](fbstorage::Storage& storage) {
    if (auto alive = weak.lock()) storage.use_auth(&alive->auth);
  };
  for (auto& entry : registry->storages) registry->attach_auth(*entry.second.core);
  registry->auth = auth;
  registry->deleters[auth] = [auth] { delete auth; };
  return auth;
}

Auth::~Auth() {
  firebase::internal::AppInternal* registry = app_->internal();
  {
    std::lock_guard<std::mutex> lock(registry->mutex);
    registry->attach_auth = nullptr;
    registry->auth = nullptr;
    registry->deleters.erase(this);
    for (auto& entry : registry->storages) {
      try {
        entry.second.core->use_auth(nullptr);
      } catch (const fbstorage::Error& e) {
        Report("~Auth", e);
      }
    }
  }
  std::vector<AuthStateListener*> state_listeners;
  std::vector<IdTokenListener*> id_token_listeners;
  {
    std::lock_guard<std::mutex> lock(internal_->mutex);
    for (auto& entry : internal_->state_listeners) state_listeners.push_back(entry.first);
    for (auto& entry : internal_->id_token_listeners) id_token_listeners.push_back(entry.first);
  }
  for (auto* listener : state_listeners) RemoveAuthStateListener(listener);
  for (auto* listener : id_token_listeners) RemoveIdTokenListener(listener);
}

App& Auth::app() { return *app_; }

User Auth::current_user() {
  try {
    auto user = internal_->auth.current_user();
    return internal::MakeUser(internal_, user ? &*user : nullptr);
  } catch (const fbstorage::Error& e) {
    Report("current_user", e);
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

Future<AuthResult> Auth::SignInAnonymouslyLastResult() const { return internal_->anonymous_result.get(); }
Future<AuthResult> Auth::SignInWithEmailAndPasswordLastResult() const { return internal_->email_result.get(); }
Future<AuthResult> Auth::CreateUserWithEmailAndPasswordLastResult() const { return internal_->create_user_result.get(); }
Future<AuthResult> Auth::SignInWithCustomTokenLastResult() const { return internal_->custom_token_result.get(); }

void Auth::SignOut() {
  try {
    internal_->auth.sign_out();
  } catch (const fbstorage::Error& e) {
    Report("SignOut", e);
  }
}

void Auth::UseEmulator(std::string host, uint32_t port) {
  try {
    internal_->auth.use_emulator(host, port > 65535 ? -1 : static_cast<int>(port));
  } catch (const fbstorage::Error& e) {
    Report("UseEmulator", e);
  }
}

namespace {

// Adds a listener once per auth: registers it with the core and notes the auth in the
// listener (its destructor removes it from every auth it was added to).
template <class L, class Notify>
void AddListener(Auth* auth, L* listener, std::map<L*, fbstorage::Auth::ListenerId>& ids, std::mutex& mutex,
                 fbstorage::Auth::ListenerId (fbstorage::Auth::*add)(fbstorage::Auth::Listener), fbstorage::Auth& core,
                 std::vector<Auth*>& auths, Notify notify) {
  if (!listener) return;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (ids.count(listener)) return;
  }
  fbstorage::Auth::ListenerId id;
  try {
    id = (core.*add)([auth, listener, notify](const fbstorage::UserView*) { notify(listener, auth); });
  } catch (const fbstorage::Error& e) {
    Report("AddListener", e);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    ids[listener] = id;
  }
  std::lock_guard<std::mutex> lock(ListenersMutex());
  auths.push_back(auth);
}

template <class L>
void RemoveListener(Auth* auth, L* listener, std::map<L*, fbstorage::Auth::ListenerId>& ids, std::mutex& mutex,
                    fbstorage::Auth& core, std::vector<Auth*>& auths) {
  if (!listener) return;
  fbstorage::Auth::ListenerId id;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = ids.find(listener);
    if (found == ids.end()) return;
    id = found->second;
    ids.erase(found);
  }
  {
    std::lock_guard<std::mutex> lock(ListenersMutex());
    auths.erase(std::remove(auths.begin(), auths.end(), auth), auths.end());
  }
  try {
    core.remove_listener(id);  // waits for a running call of it (unless called from one)
  } catch (const fbstorage::Error& e) {
    Report("RemoveListener", e);
  }
}

}  // namespace

void Auth::AddAuthStateListener(AuthStateListener* listener) {
  if (!listener) return;
  AddListener(this, listener, internal_->state_listeners, internal_->mutex, &fbstorage::Auth::add_state_listener,
              internal_->auth, listener->auths_,
              [](AuthStateListener* l, Auth* auth) { l->OnAuthStateChanged(auth); });
}

void Auth::RemoveAuthStateListener(AuthStateListener* listener) {
  if (!listener) return;
  RemoveListener(this, listener, internal_->state_listeners, internal_->mutex, internal_->auth, listener->auths_);
}

void Auth::AddIdTokenListener(IdTokenListener* listener) {
  if (!listener) return;
  AddListener(this, listener, internal_->id_token_listeners, internal_->mutex, &fbstorage::Auth::add_id_token_listener,
              internal_->auth, listener->auths_, [](IdTokenListener* l, Auth* auth) { l->OnIdTokenChanged(auth); });
}

void Auth::RemoveIdTokenListener(IdTokenListener* listener) {
  if (!listener) return;
  RemoveListener(this, listener, internal_->id_token_listeners, internal_->mutex, internal_->auth, listener->auths_);
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
