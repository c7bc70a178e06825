// firebase/auth/user.h — firebase::auth::User and AuthResult, as the Firebase C++ SDK declares
// them (the members fbstorage implements).
//
// A User is a view of its Auth's current user, whoever that is, as the SDK's User is (its
// integration test's TestRetainedUser and TestCopyUser): its getters answer the current user's
// state now (after Reload() or an account change, the new state); while no one is signed in it
// is invalid and its getters answer "" and 0; once another user signs in it shows that user.
// Copies are views of the same Auth. Its calls (GetToken, Delete, Reload, LinkWithCredential,
// ...) act on the current user, and fail with kAuthErrorNoSignedInUser while there is none, or
// once the Auth (or its App) is deleted. A default-constructed User is invalid for good.
// Thread safety: every method may be called from any thread.
#ifndef FIREBASE_AUTH_USER_H_
#define FIREBASE_AUTH_USER_H_

#include <stdint.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "firebase/auth/credential.h"
#include "firebase/auth/types.h"
#include "firebase/future.h"
#include "firebase/internal/common.h"
#include "firebase/variant.h"

namespace firebase {
namespace auth {

class Auth;
struct AuthResult;

namespace internal {
class AuthInternal;
struct UserProfileData;
}  // namespace internal

// One sign-in method's profile (User::provider_data()), or the base of User.
class UserInfoInterface {
 public:
  virtual ~UserInfoInterface() {}
  virtual std::string uid() const { return uid_; }
  virtual std::string email() const { return email_; }
  virtual std::string display_name() const { return display_name_; }
  virtual std::string photo_url() const { return photo_url_; }
  virtual std::string provider_id() const { return provider_id_; }
  virtual std::string phone_number() const { return phone_number_; }

 private:
  friend class User;
  friend struct internal::UserProfileData;
  std::string uid_;
  std::string email_;
  std::string display_name_;
  std::string photo_url_;
  std::string provider_id_;
  std::string phone_number_;
};

// What a sign-in's answer says beyond the user: the provider, the user's name there
// (screenName) and the identity provider's profile of the user (rawUserInfo: a JSON object,
// keys and values as Variants; empty for sign-ins without a provider). A reauthentication and an
// identity provider's link answer the same; a password's link the provider only.
// updated_credential is always invalid: Identity Toolkit's answers to these flows carry none.
struct AdditionalUserInfo {
  std::string provider_id;
  std::string user_name;
  std::map<Variant, Variant> profile;
  Credential updated_credential;
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
  // Errors: kAuthErrorNoSignedInUser, kAuthErrorInvalidParameter (a control character), and the
  // session's errors (kAuthErrorUserTokenExpired, kAuthErrorUserDisabled, ...).
  Future<void> UpdateUserProfile(const UserProfile& profile);
  Future<void> UpdateUserProfileLastResult() const;

  // Signs the user in again with a credential of theirs (a recent sign-in for the calls that
  // need one). Errors: kAuthErrorUserMismatch (another user's credential: the user stays),
  // kAuthErrorWrongPassword, kAuthErrorInvalidCredential, kAuthErrorMissingEmail, ...
  Future<void> Reauthenticate(const Credential& credential);
  Future<void> ReauthenticateLastResult() const;
  Future<AuthResult> ReauthenticateAndRetrieveData(const Credential& credential);
  Future<AuthResult> ReauthenticateAndRetrieveDataLastResult() const;

  // Adds the credential's sign-in method; the user keeps the uid (an anonymous one becomes
  // permanent). Errors: kAuthErrorProviderAlreadyLinked, kAuthErrorCredentialAlreadyInUse,
  // kAuthErrorEmailAlreadyInUse, kAuthErrorWeakPassword, kAuthErrorInvalidCredential.
  Future<AuthResult> LinkWithCredential(const Credential& credential);
  Future<AuthResult> LinkWithCredentialLastResult() const;
  // Removes a sign-in method ("password", "google.com", ...).
  Future<AuthResult> Unlink(const char* provider);
  Future<AuthResult> UnlinkLastResult() const;

  // Changes the email at once (deprecated in the SDK: SendEmailVerificationBeforeUpdatingEmail
  // asks the new address first) or the password. Errors: kAuthErrorRequiresRecentLogin,
  // kAuthErrorEmailAlreadyInUse, kAuthErrorInvalidEmail, kAuthErrorWeakPassword.
  FIREBASE_DEPRECATED Future<void> UpdateEmail(const char* email);
  FIREBASE_DEPRECATED Future<void> UpdateEmailLastResult() const;
  Future<void> UpdatePassword(const char* password);
  Future<void> UpdatePasswordLastResult() const;

  // Mails a code that verifies the user's email (an Auth emulator lists it at
  // GET /emulator/v1/projects/{project}/oobCodes); Reload() then shows is_email_verified().
  Future<void> SendEmailVerification();
  Future<void> SendEmailVerificationLastResult() const;
  // Mails a code to `email` that, applied, makes it the user's email.
  Future<void> SendEmailVerificationBeforeUpdatingEmail(const char* email);
  Future<void> SendEmailVerificationBeforeUpdatingEmailLastResult() const;

  // Reads the account again (profile, email verification) and refreshes the ID token, whose
  // claims storage rules see (request.auth.token.email_verified).
  Future<void> Reload();
  Future<void> ReloadLastResult() const;

  // The sign-in methods linked to the user, as the account read at sign-in (or by Reload() or an
  // account change) lists them. A session restored from a refresh token alone lists the ID
  // token's firebase.identities until Reload(): provider_id and the provider's uid, email for
  // "password". A reference, where the SDK returns a copy, so that the C++ guides' loop over
  // provider_data().begin() and provider_data().end() walks one vector.
  const std::vector<UserInfoInterface>& provider_data() const;

  // The account's creation and last sign-in times (ms), read as provider_data(); for a session
  // restored from a refresh token alone, until Reload(): creation_timestamp 0 and
  // last_sign_in_timestamp the ID token's auth_time.
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

  // Fails at once with kAuthErrorApiNotAvailable: phone sign-in is not available here
  // (firebase/auth/credential.h).
  Future<User> UpdatePhoneNumberCredential(const PhoneAuthCredential& credential);
  Future<User> UpdatePhoneNumberCredentialLastResult() const;

  // fbstorage: a view of the auth's current user.
  explicit User(std::shared_ptr<internal::AuthInternal> auth);

 private:
  std::weak_ptr<internal::AuthInternal> Owner() const;
  // The Auth's current user's profile, null when there is none.
  std::shared_ptr<const internal::UserProfileData> Shown() const;

  std::weak_ptr<internal::AuthInternal> auth_;  // weak: an Auth's last results hold Users
  mutable std::shared_ptr<std::mutex> mutex_;  // guards auth_ and profile_
  // The last profile shown, which provider_data()'s vector belongs to.
  mutable std::shared_ptr<const internal::UserProfileData> profile_;
};

struct AuthResult {
  AdditionalUserInfo additional_user_info;
  Credential credential;
  User user;
};

}  // namespace auth
}  // namespace firebase

#endif  // FIREBASE_AUTH_USER_H_
