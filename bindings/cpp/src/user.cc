// user.cc — firebase::auth::User: a view of its Auth's current user, whoever that is, with the
// account calls of its Auth.
#include "firebase/auth/user.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "auth_internal.h"

namespace firebase {
namespace auth {

using firebase::internal::RunOperation;
using nlohmann::json;

namespace internal {

UserInfoInterface UserProfileData::Provider(std::string provider_id, std::string uid, std::string email,
                                            std::string display_name, std::string photo_url,
                                            std::string phone_number) {
  UserInfoInterface info;
  info.provider_id_ = std::move(provider_id);
  info.uid_ = std::move(uid);
  info.email_ = std::move(email);
  info.display_name_ = std::move(display_name);
  info.photo_url_ = std::move(photo_url);
  info.phone_number_ = std::move(phone_number);
  return info;
}

bool UserProfileData::operator==(const UserProfileData& other) const {
  auto same = [](const UserInfoInterface& a, const UserInfoInterface& b) {
    return a.provider_id() == b.provider_id() && a.uid() == b.uid() && a.email() == b.email() &&
           a.display_name() == b.display_name() && a.photo_url() == b.photo_url() &&
           a.phone_number() == b.phone_number();
  };
  return uid == other.uid && email == other.email && display_name == other.display_name &&
         photo_url == other.photo_url && anonymous == other.anonymous && email_verified == other.email_verified &&
         auth_time_ms == other.auth_time_ms && creation_ms == other.creation_ms &&
         last_sign_in_ms == other.last_sign_in_ms &&
         std::equal(providers.begin(), providers.end(), other.providers.begin(), other.providers.end(), same);
}

namespace {

// The account's sign-in methods as the account lookup reported them.
std::vector<UserInfoInterface> AccountProviders(const fbstorage::UserView& user) {
  std::vector<UserInfoInterface> providers;
  for (auto& info : user.providers()) {
    providers.push_back(UserProfileData::Provider(std::move(info.provider_id), std::move(info.uid),
                                                  info.email.value_or(""), info.display_name.value_or(""),
                                                  info.photo_url.value_or(""), info.phone_number.value_or("")));
  }
  return providers;
}

// firebase.identities of the ID token's claims: {"email": [address], "google.com": [uid], ...};
// the "email" entry is the password provider's.
std::vector<UserInfoInterface> TokenProviders(const std::string& claims_json) {
  std::vector<UserInfoInterface> providers;
  json claims = json::parse(claims_json, nullptr, false);
  if (!claims.is_object() || !claims.contains("firebase") || !claims["firebase"].is_object()) return providers;
  const json& identities = claims["firebase"].value("identities", json::object());
  if (!identities.is_object()) return providers;
  for (const auto& [provider, ids] : identities.items()) {
    if (!ids.is_array() || ids.empty() || !ids[0].is_string()) continue;
    std::string id = ids[0].get<std::string>();
    if (provider == "email")
      providers.push_back(UserProfileData::Provider(EmailAuthProvider::kProviderId, id, id));
    else
      providers.push_back(UserProfileData::Provider(provider, id, std::string()));
  }
  return providers;
}

}  // namespace

std::shared_ptr<const UserProfileData> MakeProfile(const fbstorage::UserView& user) {
  auto profile = std::make_shared<UserProfileData>();
  profile->uid = user.uid();
  profile->email = user.email().value_or("");
  profile->display_name = user.display_name().value_or("");
  profile->photo_url = user.photo_url().value_or("");
  profile->anonymous = user.is_anonymous();
  profile->auth_time_ms = user.auth_time_ms().value_or(0);
  profile->email_verified = user.is_email_verified();
  // Every sign-in reads the account, as do Reload() and the account changes; a session restored
  // from a refresh token alone has not read it: the ID token tells its sign-in methods (ids only).
  profile->creation_ms = user.creation_time_ms().value_or(0);
  profile->last_sign_in_ms = user.last_sign_in_time_ms().value_or(0);
  bool account_read = user.creation_time_ms().has_value();
  profile->providers = account_read ? AccountProviders(user) : TokenProviders(user.claims_json());
  return profile;
}

User MakeUser(const std::shared_ptr<AuthInternal>& auth, const fbstorage::UserView* user) {
  return user ? User(auth) : User();
}

namespace {

// A JSON value as the Variant the SDK's profile map holds.
Variant ToVariant(const json& value) {
  switch (value.type()) {
    case json::value_t::object: {
      Variant map = Variant::EmptyMap();
      for (const auto& [key, member] : value.items()) map.map()[Variant(key)] = ToVariant(member);
      return map;
    }
    case json::value_t::array: {
      Variant vector = Variant::EmptyVector();
      for (const auto& element : value) vector.vector().push_back(ToVariant(element));
      return vector;
    }
    case json::value_t::string: return Variant(value.get<std::string>());
    case json::value_t::boolean: return Variant(value.get<bool>());
    case json::value_t::number_integer: return Variant(value.get<int64_t>());
    case json::value_t::number_unsigned: return Variant(static_cast<int64_t>(value.get<uint64_t>()));
    case json::value_t::number_float: return Variant(value.get<double>());
    default: return Variant::Null();
  }
}

}  // namespace

AuthResult MakeAuthResult(const std::weak_ptr<AuthInternal>& auth, const fbstorage::UserView& user) {
  AuthResult result;
  result.user = MakeUser(auth.lock(), &user);
  AdditionalUserInfo& info = result.additional_user_info;
  info.provider_id = user.additional_provider_id().value_or(user.sign_in_provider());
  info.user_name = user.additional_username().value_or("");
  json profile = json::parse(user.additional_profile_json().value_or("{}"), nullptr, false);
  if (profile.is_object()) info.profile = ToVariant(profile).map();
  return result;
}

std::shared_ptr<const UserProfileData> AuthInternal::CurrentProfile() {
  auto core = this->core();
  std::optional<fbstorage::User> user;
  try {
    if (core) user = core->current_user();
  } catch (const fbstorage::Error&) {
  }
  if (!user) return nullptr;
  auto profile = MakeProfile(*user);
  std::lock_guard<std::mutex> lock(profile_mutex_);
  if (!profile_ || !(*profile_ == *profile)) profile_ = std::move(profile);
  return profile_;
}

}  // namespace internal

namespace {
// What a User without a profile (no one signed in) shows.
const internal::UserProfileData& Or(const std::shared_ptr<const internal::UserProfileData>& shown) {
  static const internal::UserProfileData no_one;
  return shown ? *shown : no_one;
}
}  // namespace

User::User() : mutex_(std::make_shared<std::mutex>()) {}
User::User(std::shared_ptr<internal::AuthInternal> auth) : auth_(std::move(auth)), mutex_(std::make_shared<std::mutex>()) {}
User::User(const User& other) : auth_(other.Owner()), mutex_(std::make_shared<std::mutex>()) {}
User& User::operator=(const User& other) {
  if (this == &other) return *this;
  auto auth = other.Owner();
  std::lock_guard<std::mutex> lock(*mutex_);
  auth_ = std::move(auth);
  profile_ = nullptr;
  return *this;
}
User::~User() {}

std::weak_ptr<internal::AuthInternal> User::Owner() const {
  std::lock_guard<std::mutex> lock(*mutex_);
  return auth_;
}

std::shared_ptr<const internal::UserProfileData> User::Shown() const {
  auto owner = Owner().lock();
  auto current = owner ? owner->CurrentProfile() : nullptr;
  std::lock_guard<std::mutex> lock(*mutex_);
  if (current) profile_ = current;  // keeps what provider_data() returned alive
  return current;
}

bool User::operator==(const User& other) const {
  auto mine = Owner(), theirs = other.Owner();
  return uid() == other.uid() && !mine.owner_before(theirs) && !theirs.owner_before(mine);
}
bool User::operator!=(const User& other) const { return !(*this == other); }

bool User::is_valid() const { return Shown() != nullptr; }

namespace {

template <class T>
Future<T> NoUser() {
  return firebase::internal::FailedFuture<T>(kAuthErrorNoSignedInUser, "no user is signed in (or its Auth was deleted)");
}

template <class T>
using LastOf = firebase::internal::LastResult<T> internal::AuthInternal::*;

// An account call on the Auth's current user: start(core, completion) with a completion of
// fbstorage value V, converted to the Future's T; the Future becomes the call's LastResult.
template <class T, class V, class Start, class Convert>
Future<T> OnCurrentUser(const std::weak_ptr<internal::AuthInternal>& auth, bool valid, LastOf<T> last, Start start,
                        Convert convert) {
  auto owner = auth.lock();
  auto core = owner ? owner->core() : nullptr;
  if (!core || !valid) return NoUser<T>();
  return ((*owner).*last).set(
      RunOperation<T, V>(internal::MapError, [&](auto done) { start(*core, done); }, convert));
}

// An account call that answers the updated user.
template <class Start>
Future<AuthResult> Updating(const std::weak_ptr<internal::AuthInternal>& auth, bool valid, LastOf<AuthResult> last,
                            Start start) {
  return OnCurrentUser<AuthResult, fbstorage::UserView>(
      auth, valid, last, start, [auth](const fbstorage::UserView& user) { return internal::MakeAuthResult(auth, user); });
}

template <class V, class Start>
Future<void> Done(const std::weak_ptr<internal::AuthInternal>& auth, bool valid, LastOf<void> last, Start start) {
  return OnCurrentUser<void, V>(auth, valid, last, start, [](const auto&...) {});
}

// As Updating, with a credential; an invalid one fails at once (and is the LastResult).
template <class T, class Call>
Future<T> WithCredential(const std::weak_ptr<internal::AuthInternal>& auth, bool valid, LastOf<T> last,
                         const Credential& credential, Call call) {
  int error = 0;
  std::string message;
  const fbstorage::Credential* core = internal::CoreCredential(credential, &error, &message);
  auto owner = auth.lock();
  if (core || !owner || !valid) return call(core);
  return ((*owner).*last).set(firebase::internal::FailedFuture<T>(error, message));
}

template <class T>
Future<T> Last(const std::weak_ptr<internal::AuthInternal>& auth, LastOf<T> last) {
  auto owner = auth.lock();
  return owner ? ((*owner).*last).get() : Future<T>();
}

}  // namespace

Future<std::string> User::GetToken(bool force_refresh) {
  return OnCurrentUser<std::string, std::string>(
      Owner(), is_valid(), &internal::AuthInternal::token_result,
      [&](fbstorage::Auth& auth, auto done) { auth.id_token_async(force_refresh, done); },
      [](const std::string& token) { return token; });
}
Future<std::string> User::GetTokenLastResult() const { return Last(Owner(), &internal::AuthInternal::token_result); }

Future<void> User::Delete() {
  return Done<void>(Owner(), is_valid(), &internal::AuthInternal::delete_result,
                    [](fbstorage::Auth& auth, auto done) { auth.delete_user_async(done); });
}
Future<void> User::DeleteLastResult() const { return Last(Owner(), &internal::AuthInternal::delete_result); }

Future<void> User::UpdateUserProfile(const UserProfile& profile) {
  auto field = [](const char* value) { return value ? std::optional<std::string_view>(value) : std::nullopt; };
  return Done<fbstorage::UserView>(Owner(), is_valid(), &internal::AuthInternal::update_profile_result,
                                   [&](fbstorage::Auth& auth, auto done) {
                                     auth.update_profile_async(field(profile.display_name), field(profile.photo_url), done);
                                   });
}
Future<void> User::UpdateUserProfileLastResult() const {
  return Last(Owner(), &internal::AuthInternal::update_profile_result);
}

Future<AuthResult> User::ReauthenticateAndRetrieveData(const Credential& credential) {
  return WithCredential<AuthResult>(
      Owner(), is_valid(), &internal::AuthInternal::reauthenticate_data_result, credential,
      [&](const fbstorage::Credential* core) {
        return Updating(Owner(), is_valid(), &internal::AuthInternal::reauthenticate_data_result,
                        [core](fbstorage::Auth& auth, auto done) { auth.reauthenticate_async(*core, done); });
      });
}
Future<AuthResult> User::ReauthenticateAndRetrieveDataLastResult() const {
  return Last(Owner(), &internal::AuthInternal::reauthenticate_data_result);
}

Future<void> User::Reauthenticate(const Credential& credential) {
  return WithCredential<void>(Owner(), is_valid(), &internal::AuthInternal::reauthenticate_result, credential,
                              [&](const fbstorage::Credential* core) {
                                return Done<fbstorage::UserView>(
                                    Owner(), is_valid(), &internal::AuthInternal::reauthenticate_result,
                                    [core](fbstorage::Auth& auth, auto done) { auth.reauthenticate_async(*core, done); });
                              });
}
Future<void> User::ReauthenticateLastResult() const {
  return Last(Owner(), &internal::AuthInternal::reauthenticate_result);
}

Future<AuthResult> User::LinkWithCredential(const Credential& credential) {
  return WithCredential<AuthResult>(
      Owner(), is_valid(), &internal::AuthInternal::link_result, credential, [&](const fbstorage::Credential* core) {
        return Updating(Owner(), is_valid(), &internal::AuthInternal::link_result,
                        [core](fbstorage::Auth& auth, auto done) { auth.link_with_credential_async(*core, done); });
      });
}
Future<AuthResult> User::LinkWithCredentialLastResult() const { return Last(Owner(), &internal::AuthInternal::link_result); }

Future<AuthResult> User::Unlink(const char* provider) {
  std::string id = provider ? provider : "";
  return Updating(Owner(), is_valid(), &internal::AuthInternal::unlink_result,
                  [&](fbstorage::Auth& auth, auto done) { auth.unlink_async(id, done); });
}
Future<AuthResult> User::UnlinkLastResult() const { return Last(Owner(), &internal::AuthInternal::unlink_result); }

Future<void> User::UpdateEmail(const char* email) {
  std::string address = email ? email : "";
  return Done<fbstorage::UserView>(Owner(), is_valid(), &internal::AuthInternal::update_email_result,
                                   [&](fbstorage::Auth& auth, auto done) { auth.update_email_async(address, done); });
}
Future<void> User::UpdateEmailLastResult() const { return Last(Owner(), &internal::AuthInternal::update_email_result); }

Future<void> User::UpdatePassword(const char* password) {
  std::string secret = password ? password : "";
  return Done<fbstorage::UserView>(Owner(), is_valid(), &internal::AuthInternal::update_password_result,
                                   [&](fbstorage::Auth& auth, auto done) { auth.update_password_async(secret, done); });
}
Future<void> User::UpdatePasswordLastResult() const {
  return Last(Owner(), &internal::AuthInternal::update_password_result);
}

Future<void> User::SendEmailVerification() {
  return Done<void>(Owner(), is_valid(), &internal::AuthInternal::send_verification_result,
                    [](fbstorage::Auth& auth, auto done) { auth.send_email_verification_async(done); });
}
Future<void> User::SendEmailVerificationLastResult() const {
  return Last(Owner(), &internal::AuthInternal::send_verification_result);
}

Future<void> User::SendEmailVerificationBeforeUpdatingEmail(const char* email) {
  std::string address = email ? email : "";
  return Done<void>(Owner(), is_valid(), &internal::AuthInternal::verify_before_update_result,
                    [&](fbstorage::Auth& auth, auto done) { auth.verify_before_update_email_async(address, done); });
}
Future<void> User::SendEmailVerificationBeforeUpdatingEmailLastResult() const {
  return Last(Owner(), &internal::AuthInternal::verify_before_update_result);
}

Future<void> User::Reload() {
  return Done<fbstorage::UserView>(Owner(), is_valid(), &internal::AuthInternal::reload_result,
                                   [](fbstorage::Auth& auth, auto done) { auth.reload_async(done); });
}
Future<void> User::ReloadLastResult() const { return Last(Owner(), &internal::AuthInternal::reload_result); }

Future<User> User::UpdatePhoneNumberCredential(const PhoneAuthCredential& credential) {
  int error = kAuthErrorNone;
  std::string message;
  internal::CoreCredential(credential, &error, &message);  // never valid: says why
  auto failed = firebase::internal::FailedFuture<User>(error, message);
  auto owner = Owner().lock();
  return owner ? owner->update_phone_result.set(failed) : failed;
}
Future<User> User::UpdatePhoneNumberCredentialLastResult() const {
  return Last(Owner(), &internal::AuthInternal::update_phone_result);
}

const std::vector<UserInfoInterface>& User::provider_data() const {
  auto shown = Shown();
  std::lock_guard<std::mutex> lock(*mutex_);
  return shown ? profile_->providers : Or(nullptr).providers;  // profile_ keeps the vector alive
}

UserMetadata User::metadata() const {
  UserMetadata metadata;
  auto shown = Shown();
  const internal::UserProfileData& profile = Or(shown);
  metadata.creation_timestamp = static_cast<uint64_t>(profile.creation_ms);
  // Before the account is read, the ID token's auth_time is the last sign-in.
  metadata.last_sign_in_timestamp =
      static_cast<uint64_t>(profile.last_sign_in_ms ? profile.last_sign_in_ms : profile.auth_time_ms);
  return metadata;
}

bool User::is_email_verified() const { return Or(Shown()).email_verified; }
bool User::is_anonymous() const { return Or(Shown()).anonymous; }
std::string User::uid() const { return Or(Shown()).uid; }
std::string User::email() const { return Or(Shown()).email; }
std::string User::display_name() const { return Or(Shown()).display_name; }
std::string User::photo_url() const { return Or(Shown()).photo_url; }
std::string User::provider_id() const { return "firebase"; }
std::string User::phone_number() const { return std::string(); }

}  // namespace auth
}  // namespace firebase
