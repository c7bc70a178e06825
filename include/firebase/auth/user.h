// firebase/auth/user.h — firebase::auth::User and AuthResult, as the Firebase C++ SDK declares
// them (the members fbstorage implements).
//
// A User is a snapshot of the signed-in user's profile when it was obtained (current_user(),
// AuthResult::user); GetToken and Delete act on the Auth's current user. Once the Auth (or its
// App) is deleted the User is invalid and both fail with kAuthErrorNoSignedInUser. Thread safety: const
// use from many threads is safe; GetToken may be called from any thread.
#ifndef FIREBASE_AUTH_USER_H_
#define FIREBASE_AUTH_USER_H_

#include <stdint.h>

#include <memory>
#include <string>

#include "firebase/auth/credential.h"
#include "firebase/auth/types.h"
#include "firebase/future.h"
#include "firebase/internal/common.h"

namespace firebase {
namespace auth {

class Auth;

namespace internal {
class AuthInternal;
struct UserProfileData;
}  // namespace internal

class UserInfoInterface {
 public:
  virtual ~UserInfoInterface() {}
  virtual std::string uid() const { return std::string(); }
  virtual std::string email() const { return std::string(); }
  virtual std::string display_name() const { return std::string(); }
  virtual std::string photo_url() const { return std::string(); }
  virtual std::string provider_id() const { return std::string(); }
  virtual std::string phone_number() const { return std::string(); }
};

// The SDK's AdditionalUserInfo has a `profile` map of firebase::Variant; fbstorage has no
// Variant and leaves it out.
struct AdditionalUserInfo {
  std::string provider_id;
  std::string user_name;
};

struct UserMetadata {
  UserMetadata() : last_sign_in_timestamp(0), creation_timestamp(0) {}
  uint64_t last_sign_in_timestamp;
  uint64_t creation_timestamp;
};

class User : public UserInfoInterface {
 public:
  // An invalid user (no one signed in).
  User();
  User(const User&);
  User& operator=(const User&);
  bool operator==(const User&) const;
  bool operator!=(const User&) const;
  ~User() override;

  bool is_valid() const;

  // The current user's ID token, refreshed first when about to expire or force_refresh.
  Future<std::string> GetToken(bool force_refresh);
  Future<std::string> GetTokenLastResult() const;

  // Deletes the current user's account, then signs out.
  Future<void> Delete();
  Future<void> DeleteLastResult() const;

  // The profile fields UpdateUserProfile changes: nullptr leaves a field as it is, "" deletes it.
  struct UserProfile {
    UserProfile() : display_name(nullptr), photo_url(nullptr) {}
    const char* display_name;
    const char* photo_url;
  };
  // Changes the current user's display name and photo URL (Identity Toolkit accounts:update).
  // This User stays the snapshot it was; current_user() gives the updated profile.
  // Errors: kAuthErrorNoSignedInUser, kAuthErrorInvalidParameter (a control character), and the
  // session's errors (kAuthErrorUserTokenExpired, kAuthErrorUserDisabled, ...).
  Future<void> UpdateUserProfile(const UserProfile& profile);
  Future<void> UpdateUserProfileLastResult() const;

  // last_sign_in_timestamp: the ID token's auth_time (ms); creation_timestamp is not known (0).
  UserMetadata metadata() const;
  bool is_email_verified() const;
  bool is_anonymous() const;

  std::string uid() const override;
  std::string email() const override;
  std::string display_name() const override;
  std::string photo_url() const override;
  // "firebase", as the SDK's User.
  std::string provider_id() const override;
  std::string phone_number() const override;

  // fbstorage: a snapshot of the auth's user.
  User(std::shared_ptr<internal::AuthInternal> auth, std::shared_ptr<const internal::UserProfileData> profile);

 private:
  std::weak_ptr<internal::AuthInternal> auth_;  // weak: an Auth's last results hold Users
  std::shared_ptr<const internal::UserProfileData> profile_;
};

struct AuthResult {
  AdditionalUserInfo additional_user_info;
  Credential credential;
  User user;
};

}  // namespace auth
}  // namespace firebase

#endif  // FIREBASE_AUTH_USER_H_
