// firebase/auth/credential.h — firebase::auth::Credential, the type AuthResult carries.
// fbstorage signs in with the flows of Auth (anonymous, email/password, custom token), not
// with provider credentials: the Credential of an AuthResult is always invalid.
#ifndef FIREBASE_AUTH_CREDENTIAL_H_
#define FIREBASE_AUTH_CREDENTIAL_H_

#include <string>

namespace firebase {
namespace auth {

class Credential {
 public:
  Credential() {}
  std::string provider() const { return provider_; }
  bool is_valid() const { return !provider_.empty(); }

 private:
  std::string provider_;
};

}  // namespace auth
}  // namespace firebase

#endif  // FIREBASE_AUTH_CREDENTIAL_H_
