// firebase/auth/credential.h — firebase::auth::Credential and the providers that make one, as the
// Firebase C++ SDK declares them (auth/src/include/firebase/auth/credential.h), for the
// credentials fbstorage's core signs in with: email/password and an identity provider's ID
// token and/or access token (Identity Toolkit's signInWithIdp). A Credential is a value: copies
// share it, any thread may use it. Its secrets never appear in messages.
//
// A provider given bad input (nullptr or "" where a value is needed, invalid UTF-8) answers an
// invalid Credential (is_valid() false); the calls given it fail with kAuthErrorMissingEmail,
// kAuthErrorMissingPassword or kAuthErrorInvalidCredential, saying why.
#ifndef FIREBASE_AUTH_CREDENTIAL_H_
#define FIREBASE_AUTH_CREDENTIAL_H_

#include <memory>
#include <string>

#include "firebase/auth/types.h"

namespace firebase {
namespace auth {

namespace internal {
struct CredentialData;
}  // namespace internal

class Credential {
 public:
  Credential() {}
  ~Credential() {}
  Credential(const Credential&) = default;
  Credential& operator=(const Credential&) = default;

  // The provider's id: "password", "google.com", ... ("" for a default Credential).
  std::string provider() const;
  bool is_valid() const;

  // fbstorage: the internal representation.
  explicit Credential(std::shared_ptr<const internal::CredentialData> data) : data_(std::move(data)) {}
  const std::shared_ptr<const internal::CredentialData>& data() const { return data_; }

 private:
  std::shared_ptr<const internal::CredentialData> data_;
};

// Email and password (the "password" provider).
class EmailAuthProvider {
 public:
  static Credential GetCredential(const char* email, const char* password);
  static const char* const kProviderId;
};

// A Facebook access token.
class FacebookAuthProvider {
 public:
  static Credential GetCredential(const char* access_token);
  static const char* const kProviderId;
};

// A GitHub OAuth access token.
class GitHubAuthProvider {
 public:
  static Credential GetCredential(const char* token);
  static const char* const kProviderId;
};

// A Google Sign-In ID token and/or access token (either may be nullptr, not both).
class GoogleAuthProvider {
 public:
  static Credential GetCredential(const char* id_token, const char* access_token);
  static const char* const kProviderId;
};

class MicrosoftAuthProvider {
 public:
  static const char* const kProviderId;
};

class YahooAuthProvider {
 public:
  static const char* const kProviderId;
};

// Any OAuth provider Identity Toolkit accepts ("apple.com", "oidc.<name>", ...): its ID token
// and/or access token.
class OAuthProvider {
 public:
  static Credential GetCredential(const char* provider_id, const char* id_token, const char* access_token);
};

}  // namespace auth
}  // namespace firebase

#endif  // FIREBASE_AUTH_CREDENTIAL_H_
