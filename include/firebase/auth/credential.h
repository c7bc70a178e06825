// firebase/auth/credential.h — firebase::auth::Credential and the providers that make one, as the
// Firebase C++ SDK declares them (auth/src/include/firebase/auth/credential.h), for the
// credentials fbstorage's core signs in with: email/password and an identity provider's ID
// token and/or access token (Identity Toolkit's signInWithIdp), with Apple's raw nonce or
// Twitter's token secret. A Credential is a value: copies share it, any thread may use it. Its
// secrets never appear in messages.
//
// PhoneAuthProvider is declared as the SDK declares it, with what phone sign-in can do on Linux:
// nothing. Identity Toolkit sends a code only to an app that proves itself with reCAPTCHA or a
// mobile platform's attestation, neither of which a desktop process has (the SDK's own desktop
// build reports a made-up code instead). So VerifyPhoneNumber() answers the listener's
// OnVerificationFailed() at once, and a PhoneAuthCredential is never valid: the calls given it
// fail with kAuthErrorApiNotAvailable.
//
// A provider given bad input (nullptr or "" where a value is needed, invalid UTF-8) answers an
// invalid Credential (is_valid() false); the calls given it fail with kAuthErrorMissingEmail,
// kAuthErrorMissingPassword or kAuthErrorInvalidCredential, saying why.
#ifndef FIREBASE_AUTH_CREDENTIAL_H_
#define FIREBASE_AUTH_CREDENTIAL_H_

#include <cstdint>
#include <memory>
#include <string>

#include "firebase/auth/types.h"

namespace firebase {
namespace auth {

class Auth;

namespace internal {
struct CredentialData;
class AuthInternal;
}  // namespace internal

// Where a mobile platform shows its verification UI; unused on desktop, as in the SDK.
typedef void* UIParent;

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
// and/or access token; with the raw nonce the ID token was made for (Sign in with Apple).
class OAuthProvider {
 public:
  static Credential GetCredential(const char* provider_id, const char* id_token, const char* access_token);
  static Credential GetCredential(const char* provider_id, const char* id_token, const char* raw_nonce,
                                  const char* access_token);
};

// A Twitter OAuth 1.0 token and its secret (both needed).
class TwitterAuthProvider {
 public:
  static Credential GetCredential(const char* token, const char* secret);
  static const char* const kProviderId;
};

// A phone number's credential: never valid here (see the top of this file).
class PhoneAuthCredential : public Credential {
 public:
  PhoneAuthCredential() {}
  PhoneAuthCredential(const PhoneAuthCredential&) = default;
  PhoneAuthCredential& operator=(const PhoneAuthCredential&) = default;
  // The code a mobile platform read from the text message: "" here.
  std::string sms_code() const { return std::string(); }

  // fbstorage: the internal representation.
  explicit PhoneAuthCredential(std::shared_ptr<const internal::CredentialData> data) : Credential(std::move(data)) {}
};

struct PhoneAuthOptions;

// Phone number sign-in, as the SDK declares it; on Linux it reports that it is not available
// (see the top of this file). One per Auth: GetInstance().
class PhoneAuthProvider {
 public:
  // What the SDK's mobile platforms hand back to ask for the code again. All are alike here.
  class ForceResendingToken {
   public:
    ForceResendingToken() {}
    ForceResendingToken(const ForceResendingToken&) = default;
    ForceResendingToken& operator=(const ForceResendingToken&) = default;
    ~ForceResendingToken() {}
    bool operator==(const ForceResendingToken&) const { return true; }
    bool operator!=(const ForceResendingToken&) const { return false; }
  };

  // Told how a VerifyPhoneNumber() call goes; here only OnVerificationFailed() is ever called.
  class Listener {
   public:
    Listener() {}
    virtual ~Listener() {}
    virtual void OnVerificationCompleted(PhoneAuthCredential credential) = 0;
    virtual void OnVerificationFailed(const std::string& error) = 0;
    virtual void OnCodeSent(const std::string& verification_id, const ForceResendingToken& force_resending_token) {
      (void)verification_id;
      (void)force_resending_token;
    }
    virtual void OnCodeAutoRetrievalTimeOut(const std::string& verification_id) { (void)verification_id; }
  };

  // Calls listener->OnVerificationFailed() before returning, on this thread, saying why phone
  // sign-in is not available. A null listener is ignored.
  void VerifyPhoneNumber(const PhoneAuthOptions& options, Listener* listener);
  // An invalid credential: using it fails with kAuthErrorApiNotAvailable.
  PhoneAuthCredential GetCredential(const char* verification_id, const char* verification_code);
  // The provider of this Auth (which owns it).
  static PhoneAuthProvider& GetInstance(Auth* auth);
  static const char* const kProviderId;

 private:
  friend class internal::AuthInternal;
  PhoneAuthProvider() {}
  ~PhoneAuthProvider() {}
  PhoneAuthProvider(const PhoneAuthProvider&) = delete;
  PhoneAuthProvider& operator=(const PhoneAuthProvider&) = delete;
};

// VerifyPhoneNumber()'s options, as the SDK's.
struct PhoneAuthOptions {
  PhoneAuthOptions() : force_resending_token(nullptr), timeout_milliseconds(0), ui_parent(nullptr) {}
  PhoneAuthProvider::ForceResendingToken* force_resending_token;
  std::string phone_number;
  uint32_t timeout_milliseconds;
  UIParent ui_parent;
};

}  // namespace auth
}  // namespace firebase

#endif  // FIREBASE_AUTH_CREDENTIAL_H_
