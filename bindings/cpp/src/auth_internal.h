// auth_internal.h — the internals of the firebase::auth classes.
#ifndef FBSTORAGE_CPP_AUTH_INTERNAL_H_
#define FBSTORAGE_CPP_AUTH_INTERNAL_H_

#include <map>
#include <string>

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
};

class AuthInternal {
 public:
  AuthInternal(App* app, const char* api_key, const char* project_id)
      : app(app), auth(api_key, *project_id ? std::optional<std::string_view>(project_id) : std::nullopt) {}
  App* app;
  fbstorage::Auth auth;
  firebase::internal::LastResult<AuthResult> custom_token_result, anonymous_result, email_result, create_user_result;
  firebase::internal::LastResult<std::string> token_result;
  firebase::internal::LastResult<void> delete_result;
  std::mutex mutex;
  std::map<AuthStateListener*, fbstorage::Auth::ListenerId> state_listeners;
  std::map<IdTokenListener*, fbstorage::Auth::ListenerId> id_token_listeners;
};

// A User snapshot of an fbstorage user (invalid for nullptr).
User MakeUser(const std::shared_ptr<AuthInternal>& auth, const fbstorage::UserView* user);

}  // namespace internal
}  // namespace auth
}  // namespace firebase

#endif  // FBSTORAGE_CPP_AUTH_INTERNAL_H_
