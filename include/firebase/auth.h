// firebase/auth.h — firebase::auth::Auth, as the Firebase C++ SDK declares it
// (auth/src/include/firebase/auth.h), for the flows fbstorage's core implements: anonymous,
// email/password (create and sign in), custom token, credentials (email/password, identity
// providers' tokens), password reset, sign-out, ID tokens, listeners.
//
// One Auth per App (GetAuth; deleted by `delete`). Deleting its App tears it down (listeners
// removed, current_user() invalid, its calls fail with kAuthErrorFailure): the object stays
// until deleted, and app() must not be called any more. The Storage instances of
// the same App send its current user's ID token with every request. FIREBASE_AUTH_EMULATOR_HOST
// selects an emulator as UseEmulator does. Futures and listeners complete and run on the
// Auth's callback thread; listeners run once when added, then on every change (state) or new
// ID token. Thread safety: every method may be called from any thread.
#ifndef FIREBASE_AUTH_H_
#define FIREBASE_AUTH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "firebase/app.h"
#include "firebase/auth/user.h"
#include "firebase/future.h"
#include "firebase/internal/common.h"

namespace firebase {
namespace auth {

class AuthStateListener;
class IdTokenListener;

class Auth {
 public:
  ~Auth();

  // Invalid (is_valid() false) when signed out.
  User current_user();

  Future<AuthResult> SignInWithCustomToken(const char* custom_token);
  Future<AuthResult> SignInWithCustomTokenLastResult() const;
  Future<AuthResult> SignInAnonymously();
  Future<AuthResult> SignInAnonymouslyLastResult() const;
  Future<AuthResult> SignInWithEmailAndPassword(const char* email, const char* password);
  Future<AuthResult> SignInWithEmailAndPasswordLastResult() const;
  Future<AuthResult> CreateUserWithEmailAndPassword(const char* email, const char* password);
  Future<AuthResult> CreateUserWithEmailAndPasswordLastResult() const;

  // Signs in with a credential (EmailAuthProvider, GoogleAuthProvider, OAuthProvider, ...): an
  // identity provider's user gets an account the first time. Errors: kAuthErrorWrongPassword,
  // kAuthErrorUserNotFound, kAuthErrorUserDisabled, kAuthErrorInvalidCredential,
  // kAuthErrorAccountExistsWithDifferentCredentials (the email's account signs in another way:
  // sign in to it, then link), kAuthErrorMissingEmail/kAuthErrorMissingPassword (an invalid
  // Credential). The SDK declares no LastResult for SignInWithCredential.
  Future<User> SignInWithCredential(const Credential& credential);
  Future<AuthResult> SignInAndRetrieveDataWithCredential(const Credential& credential);
  Future<AuthResult> SignInAndRetrieveDataWithCredentialLastResult() const;

  // Mails a password-reset code for the account of `email` (an Auth emulator lists it at
  // GET /emulator/v1/projects/{project}/oobCodes). Errors: kAuthErrorUserNotFound,
  // kAuthErrorInvalidEmail.
  Future<void> SendPasswordResetEmail(const char* email);
  Future<void> SendPasswordResetEmailLastResult() const;

  // FetchProvidersForEmail()'s answer.
  struct FetchProvidersResult {
    FetchProvidersResult() {}
    std::vector<std::string> providers;
  };
  // How `email` can sign in (Identity Toolkit's createAuthUri): "password", "emailLink" and the
  // providers linked to its account; none when no account has it, and always when the project
  // protects against email enumeration (the default for new projects).
  // Errors: kAuthErrorMissingEmail (nullptr or ""), kAuthErrorInvalidEmail.
  Future<FetchProvidersResult> FetchProvidersForEmail(const char* email);
  Future<FetchProvidersResult> FetchProvidersForEmailLastResult() const;

  void SignOut();

  // The listener must be removed (or destroyed: its destructor removes it) before it dies.
  void AddAuthStateListener(AuthStateListener* listener);
  void RemoveAuthStateListener(AuthStateListener* listener);
  void AddIdTokenListener(IdTokenListener* listener);
  void RemoveIdTokenListener(IdTokenListener* listener);

  // A bad host or port is reported on stderr (the SDK's signature returns nothing).
  void UseEmulator(std::string host, uint32_t port);

  App& app();

  // nullptr when the app has no API key.
  static Auth* GetAuth(App* app, InitResult* init_result_out = nullptr);

  // fbstorage: the internal representation.
  const std::shared_ptr<internal::AuthInternal>& internal() const { return internal_; }

 private:
  Auth(App* app, std::shared_ptr<internal::AuthInternal> internal);
  Auth(const Auth&) = delete;
  Auth& operator=(const Auth&) = delete;

  App* app_;
  std::shared_ptr<internal::AuthInternal> internal_;
};

class AuthStateListener {
 public:
  virtual ~AuthStateListener();
  virtual void OnAuthStateChanged(Auth* auth) = 0;

 private:
  friend class Auth;
  friend class internal::AuthInternal;
  std::vector<Auth*> auths_;
};

class IdTokenListener {
 public:
  virtual ~IdTokenListener();
  virtual void OnIdTokenChanged(Auth* auth) = 0;

 private:
  friend class Auth;
  friend class internal::AuthInternal;
  std::vector<Auth*> auths_;
};

}  // namespace auth
}  // namespace firebase

#endif  // FIREBASE_AUTH_H_
