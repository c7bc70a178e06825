// credential.cc — firebase::auth::Credential and its providers over fbstorage::Credential.
#include "firebase/auth/credential.h"

#include "auth_internal.h"

namespace firebase {
namespace auth {

const char* const EmailAuthProvider::kProviderId = "password";
const char* const FacebookAuthProvider::kProviderId = "facebook.com";
const char* const GitHubAuthProvider::kProviderId = "github.com";
const char* const GoogleAuthProvider::kProviderId = "google.com";
const char* const MicrosoftAuthProvider::kProviderId = "microsoft.com";
const char* const YahooAuthProvider::kProviderId = "yahoo.com";
const char* const TwitterAuthProvider::kProviderId = "twitter.com";
const char* const PhoneAuthProvider::kProviderId = "phone";

namespace {

std::shared_ptr<internal::CredentialData> InvalidData(const char* provider, int error, std::string message) {
  auto data = std::make_shared<internal::CredentialData>();
  data->provider = provider ? provider : "";
  data->error = error;
  data->message = std::move(message);
  return data;
}

Credential Invalid(const char* provider, int error, std::string message) {
  return Credential(InvalidData(provider, error, std::move(message)));
}

const char kPhoneUnavailable[] =
    "phone number sign-in is not available on Linux: Identity Toolkit sends a code only to an app that "
    "proves itself with reCAPTCHA or a mobile platform's attestation";

// make() builds the fbstorage credential; its refusal makes an invalid Credential.
template <class Make>
Credential Made(const char* provider, Make make) {
  try {
    auto data = std::make_shared<internal::CredentialData>();
    data->provider = provider;
    data->core = std::make_shared<const fbstorage::Credential>(make());
    return Credential(std::move(data));
  } catch (const fbstorage::Error& e) {
    return Invalid(provider, kAuthErrorInvalidCredential, e.what());
  }
}

std::optional<std::string_view> Token(const char* token) {
  return token ? std::optional<std::string_view>(token) : std::nullopt;
}

}  // namespace

std::string Credential::provider() const { return data_ ? data_->provider : std::string(); }
bool Credential::is_valid() const { return data_ && data_->core; }

Credential EmailAuthProvider::GetCredential(const char* email, const char* password) {
  if (!email || !*email) return Invalid(kProviderId, kAuthErrorMissingEmail, "the credential has no email address");
  if (!password || !*password) return Invalid(kProviderId, kAuthErrorMissingPassword, "the credential has no password");
  return Made(kProviderId, [&] { return fbstorage::Credential::email(email, password); });
}

Credential OAuthProvider::GetCredential(const char* provider_id, const char* id_token, const char* access_token) {
  if (!provider_id || !*provider_id) return Invalid("", kAuthErrorInvalidProviderId, "the credential has no provider id");
  return Made(provider_id, [&] { return fbstorage::Credential::idp(provider_id, Token(id_token), Token(access_token)); });
}

Credential OAuthProvider::GetCredential(const char* provider_id, const char* id_token, const char* raw_nonce,
                                         const char* access_token) {
  if (!provider_id || !*provider_id) return Invalid("", kAuthErrorInvalidProviderId, "the credential has no provider id");
  return Made(provider_id, [&] {
    return fbstorage::Credential::oauth(provider_id, Token(id_token), Token(raw_nonce), Token(access_token), std::nullopt);
  });
}

Credential TwitterAuthProvider::GetCredential(const char* token, const char* secret) {
  if (!token || !*token || !secret || !*secret)
    return Invalid(kProviderId, kAuthErrorInvalidCredential, "a Twitter credential needs its token and its secret");
  return Made(kProviderId, [&] { return fbstorage::Credential::oauth(kProviderId, std::nullopt, std::nullopt, token, secret); });
}

void PhoneAuthProvider::VerifyPhoneNumber(const PhoneAuthOptions&, Listener* listener) {
  if (listener) listener->OnVerificationFailed(kPhoneUnavailable);
}

PhoneAuthCredential PhoneAuthProvider::GetCredential(const char*, const char*) {
  return PhoneAuthCredential(InvalidData(kProviderId, kAuthErrorApiNotAvailable, kPhoneUnavailable));
}

PhoneAuthProvider& PhoneAuthProvider::GetInstance(Auth* auth) { return auth->internal()->phone_provider; }

Credential GoogleAuthProvider::GetCredential(const char* id_token, const char* access_token) {
  return OAuthProvider::GetCredential(kProviderId, id_token, access_token);
}

Credential FacebookAuthProvider::GetCredential(const char* access_token) {
  return OAuthProvider::GetCredential(kProviderId, nullptr, access_token);
}

Credential GitHubAuthProvider::GetCredential(const char* token) {
  return OAuthProvider::GetCredential(kProviderId, nullptr, token);
}

const fbstorage::Credential* internal::CoreCredential(const Credential& credential, int* error, std::string* message) {
  const auto& data = credential.data();
  if (data && data->core) return data->core.get();
  *error = data ? data->error : kAuthErrorInvalidCredential;
  *message = data ? data->message : "the credential is empty (made by Credential())";
  return nullptr;
}

}  // namespace auth
}  // namespace firebase
