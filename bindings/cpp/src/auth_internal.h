// auth_internal.h — the internals of the firebase::auth classes.
#ifndef FBSTORAGE_CPP_AUTH_INTERNAL_H_
#define FBSTORAGE_CPP_AUTH_INTERNAL_H_

#include <map>
#include <string>
#include <vector>

#include "firebase/auth.h"
#include "internal.h"

namespace firebase {
namespace auth {
namespace internal {

// fbs_error_code -> AuthError.
int MapError(int fbs_code);

struct UserProfileData {
  std::string uid, email, display_name, photo_url;
  bool anonymous = false;
  bool email_verified = false;
  int64_t auth_time_ms = 0;
  // The account's (UserMetadata), 0 while not read: see MakeProfile.
  int64_t creation_ms = 0, last_sign_in_ms = 0;
  // The account's sign-in methods (read at sign-in), else the ID token's firebase.identities.
  std::vector<UserInfoInterface> providers;
  bool operator==(const UserProfileData& other) const;
  // A provider_data() entry.
  static UserInfoInterface Provider(std::string provider_id, std::string uid, std::string email,
                                    std::string display_name = {}, std::string photo_url = {},
                                    std::string phone_number = {});
};

// A Credential's content: the fbstorage credential, or why the provider refused to make one.
struct CredentialData {
  std::string provider;
  std::shared_ptr<const fbstorage::Credential> core;  // null when invalid
  int error = kAuthErrorNone;                          // when invalid: the AuthError of using it
  std::string message;
};

// An Auth's state, shared by the Auth and its Users. TearDown() (deleting the Auth or its App)
// removes its listeners and frees the fbstorage auth; the Auth object stays until deleted.
class AuthInternal {
 public:
  AuthInternal(Auth* owner, App* app, std::shared_ptr<firebase::internal::AppInternal> registry)
      : owner(owner), registry(std::move(registry)),
        core_(std::make_shared<fbstorage::Auth>(
            app->options().api_key(),
            *app->options().project_id() ? std::optional<std::string_view>(app->options().project_id()) : std::nullopt)) {}

  // Null once torn down.
  std::shared_ptr<fbstorage::Auth> core() const;
  // Idempotent.
  void TearDown();

  Auth* const owner;  // compared, never dereferenced after ~Auth
  const std::shared_ptr<firebase::internal::AppInternal> registry;
  // The current user's profile (null when no one is signed in or the Auth is torn down); the
  // same object while nothing it shows changes, so that a User's provider_data() stays one vector.
  std::shared_ptr<const UserProfileData> CurrentProfile();

  firebase::internal::LastResult<AuthResult> custom_token_result, anonymous_result, email_result, create_user_result,
      credential_result, link_result, unlink_result, reauthenticate_data_result;
  firebase::internal::LastResult<std::string> token_result;
  firebase::internal::LastResult<User> update_phone_result;
  firebase::internal::LastResult<Auth::FetchProvidersResult> fetch_providers_result;
  firebase::internal::LastResult<void> delete_result, update_profile_result, password_reset_result,
      reauthenticate_result, update_email_result, update_password_result, send_verification_result,
      verify_before_update_result, reload_result;
  PhoneAuthProvider phone_provider;  // PhoneAuthProvider::GetInstance()
  std::mutex mutex;  // guards the listener maps
  std::map<AuthStateListener*, fbstorage::Auth::ListenerId> state_listeners;
  std::map<IdTokenListener*, fbstorage::Auth::ListenerId> id_token_listeners;

 private:
  mutable std::mutex core_mutex_;
  std::shared_ptr<fbstorage::Auth> core_;
  std::mutex profile_mutex_;
  std::shared_ptr<const UserProfileData> profile_;  // the last CurrentProfile()
};

// What a message says of an Auth torn down by its deletion or its App's.
extern const char kAuthDeletedMessage[];

// A User of the auth's current user (invalid for nullptr: no one signed in).
User MakeUser(const std::shared_ptr<AuthInternal>& auth, const fbstorage::UserView* user);
std::shared_ptr<const UserProfileData> MakeProfile(const fbstorage::UserView& user);

// An AuthResult of an fbstorage user, as the sign-in and account calls answer.
AuthResult MakeAuthResult(const std::weak_ptr<AuthInternal>& auth, const fbstorage::UserView& user);

// The credential's fbstorage credential, or the error (AuthError, message) of using an invalid one.
const fbstorage::Credential* CoreCredential(const Credential& credential, int* error, std::string* message);

}  // namespace internal
}  // namespace auth
}  // namespace firebase

#endif  // FBSTORAGE_CPP_AUTH_INTERNAL_H_
