// user.cc — firebase::auth::User: a profile snapshot, with the token and delete calls of its Auth.
#include "firebase/auth/user.h"

#include "auth_internal.h"

namespace firebase {
namespace auth {

using firebase::internal::RunOperation;

namespace internal {

// Whether the ID token's claims (a JSON object from the core) have "name": true.
bool HasTrueClaim(const std::string& claims, const std::string& name) {
  size_t at = claims.find("\"" + name + "\"");
  if (at == std::string::npos) return false;
  at = claims.find_first_not_of(" \t\r\n", at + name.size() + 2);
  if (at == std::string::npos || claims[at] != ':') return false;
  at = claims.find_first_not_of(" \t\r\n", at + 1);
  return at != std::string::npos && claims.compare(at, 4, "true") == 0;
}

User MakeUser(const std::shared_ptr<AuthInternal>& auth, const fbstorage::UserView* user) {
  if (!user) return User();
  auto profile = std::make_shared<UserProfileData>();
  profile->uid = user->uid();
  profile->email = user->email().value_or("");
  profile->display_name = user->display_name().value_or("");
  profile->photo_url = user->photo_url().value_or("");
  profile->anonymous = user->is_anonymous();
  profile->auth_time_ms = user->auth_time_ms().value_or(0);
  profile->email_verified = HasTrueClaim(user->claims_json(), "email_verified");
  return User(auth, std::move(profile));
}

}  // namespace internal

namespace {
const internal::UserProfileData& NoOne() {
  static const internal::UserProfileData no_one;
  return no_one;
}
}  // namespace

User::User() {}
User::User(std::shared_ptr<internal::AuthInternal> auth, std::shared_ptr<const internal::UserProfileData> profile)
    : auth_(std::move(auth)), profile_(std::move(profile)) {}
User::User(const User&) = default;
User& User::operator=(const User&) = default;
User::~User() {}

bool User::operator==(const User& other) const {
  return uid() == other.uid() && !auth_.owner_before(other.auth_) && !other.auth_.owner_before(auth_);
}
bool User::operator!=(const User& other) const { return !(*this == other); }

bool User::is_valid() const {
  auto owner = auth_.lock();
  return profile_ && owner && owner->core();
}

namespace {
template <class T>
Future<T> NoUser() {
  return firebase::internal::FailedFuture<T>(kAuthErrorNoSignedInUser, "no user is signed in (or its Auth was deleted)");
}
}  // namespace

Future<std::string> User::GetToken(bool force_refresh) {
  auto owner = auth_.lock();
  auto core = owner ? owner->core() : nullptr;
  if (!core || !profile_) return NoUser<std::string>();
  fbstorage::Auth& auth = *core;
  return owner->token_result.set(RunOperation<std::string, std::string>(
      internal::MapError, [&](auto done) { auth.id_token_async(force_refresh, done); },
      [](const std::string& token) { return token; }));
}

Future<std::string> User::GetTokenLastResult() const {
  auto owner = auth_.lock();
  return owner ? owner->token_result.get() : Future<std::string>();
}

Future<void> User::Delete() {
  auto owner = auth_.lock();
  auto core = owner ? owner->core() : nullptr;
  if (!core || !profile_) return NoUser<void>();
  fbstorage::Auth& auth = *core;
  return owner->delete_result.set(RunOperation<void, void>(
      internal::MapError, [&](auto done) { auth.delete_user_async(done); }, [] {}));
}

Future<void> User::DeleteLastResult() const {
  auto owner = auth_.lock();
  return owner ? owner->delete_result.get() : Future<void>();
}

Future<void> User::UpdateUserProfile(const UserProfile& profile) {
  auto owner = auth_.lock();
  auto core = owner ? owner->core() : nullptr;
  if (!core || !profile_) return NoUser<void>();
  fbstorage::Auth& auth = *core;
  auto field = [](const char* value) { return value ? std::optional<std::string_view>(value) : std::nullopt; };
  return owner->update_profile_result.set(RunOperation<void, fbstorage::UserView>(
      internal::MapError,
      [&](auto done) { auth.update_profile_async(field(profile.display_name), field(profile.photo_url), done); },
      [](const fbstorage::UserView&) {}));
}

Future<void> User::UpdateUserProfileLastResult() const {
  auto owner = auth_.lock();
  return owner ? owner->update_profile_result.get() : Future<void>();
}

UserMetadata User::metadata() const {
  UserMetadata metadata;
  metadata.last_sign_in_timestamp = static_cast<uint64_t>((profile_ ? *profile_ : NoOne()).auth_time_ms);
  return metadata;
}

bool User::is_email_verified() const { return (profile_ ? *profile_ : NoOne()).email_verified; }
bool User::is_anonymous() const { return (profile_ ? *profile_ : NoOne()).anonymous; }
std::string User::uid() const { return (profile_ ? *profile_ : NoOne()).uid; }
std::string User::email() const { return (profile_ ? *profile_ : NoOne()).email; }
std::string User::display_name() const { return (profile_ ? *profile_ : NoOne()).display_name; }
std::string User::photo_url() const { return (profile_ ? *profile_ : NoOne()).photo_url; }
std::string User::provider_id() const { return "firebase"; }
std::string User::phone_number() const { return std::string(); }

}  // namespace auth
}  // namespace firebase
