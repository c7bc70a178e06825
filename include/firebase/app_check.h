// firebase/app_check.h — firebase::app_check::AppCheck, as the Firebase C++ SDK declares it
// (app_check/src/include/firebase/app_check.h), over fbstorage's App Check (fbstorage/app_check.h).
//
// Install a provider factory (SetAppCheckProviderFactory), preferably before App::Create: from
// then on every Storage of every App sends an App Check token ("X-Firebase-AppCheck") with every
// request, with no other code; AppCheck::GetInstance(app) is that App's App Check. The token is
// kept fresh by the core: asked of the provider when a request needs one and the cached one is
// about to expire, and once more after Storage refuses one. A Storage without a token, against a
// project that enforces App Check, fails with kErrorUnauthenticated and a message naming App
// Check. The token exchange goes to production unless FIREBASE_APP_CHECK_EMULATOR_HOST=host:port
// is set when the AppCheck is created (fbstorage's variable; no Firebase SDK defines one).
//
// Lifetimes: one AppCheck per App (GetInstance; deleted by `delete`). Deleting its App tears it
// down (its Futures fail with kAppCheckErrorInvalidConfiguration, listeners stop); the object stays
// until deleted — unless the App made it itself (for a Storage, while a factory was installed, and
// nobody deleted it since): then the App deletes it too. Providers and factories are yours and must outlive the AppCheck instances using
// them. Providers are called on the App Check's callback thread and may answer from any thread;
// Futures complete and listeners run on a thread of the library. Thread safety: every method may be
// called from any thread.
#ifndef FIREBASE_APP_CHECK_H_
#define FIREBASE_APP_CHECK_H_

#include <cstdint>
#include <functional>
#include <string>

#include "firebase/app.h"
#include "firebase/future.h"

namespace firebase {
namespace app_check {

// Error codes of AppCheck's Futures and of providers' completion callbacks.
enum AppCheckError {
  kAppCheckErrorNone = 0,
  // The token exchange could not be reached before the operation deadline.
  kAppCheckErrorServerUnreachable = 1,
  // No provider, an unregistered debug token, an unknown project or app, a torn-down AppCheck.
  kAppCheckErrorInvalidConfiguration = 2,
  kAppCheckErrorSystemKeychain = 3,
  kAppCheckErrorUnsupportedProvider = 4,
  // Anything else, a provider's failure included (error_message() says what).
  kAppCheckErrorUnknown = 5,
};

// A token of the App Check service and its expiry.
struct AppCheckToken {
  std::string token;
  // Milliseconds since the Unix epoch.
  int64_t expire_time_millis;
};

// Told of each new token (not of expiry).
class AppCheckListener {
 public:
  virtual ~AppCheckListener() = 0;
  virtual void OnAppCheckTokenChanged(const AppCheckToken& token) = 0;
};

// Gets tokens: GetToken calls completion_callback exactly once, at once or later, from any
// thread, with a token and kAppCheckErrorNone, or with an error code and message. It should get
// a new token each time: AppCheck caches it.
class AppCheckProvider {
 public:
  virtual ~AppCheckProvider() = 0;
  virtual void GetToken(std::function<void(AppCheckToken, int, const std::string&)> completion_callback) = 0;
  // A token for one replay-protected call; by default, GetToken's.
  virtual void GetLimitedUseToken(std::function<void(AppCheckToken, int, const std::string&)> completion_callback);
};

// Makes (or returns the one made before) the provider of an App; the factory keeps ownership.
class AppCheckProviderFactory {
 public:
  virtual ~AppCheckProviderFactory() = 0;
  virtual AppCheckProvider* CreateProvider(App* app) = 0;
};

namespace internal {
class AppCheckInternal;
}  // namespace internal

class AppCheck {
 public:
  ~AppCheck();

  // The App's AppCheck, made on the first call; nullptr for a null app or ids the core refuses
  // (stderr says why).
  static AppCheck* GetInstance(::firebase::App* app);

  // Installs factory (nullptr removes it) for every App: the AppCheck instances that exist get
  // its provider at once, later ones when they are made. The factory must outlive them.
  static void SetAppCheckProviderFactory(AppCheckProviderFactory* factory);

  ::firebase::App* app();

  // On (the default, as the SDK's): the token is renewed in the background halfway through its
  // life, failed renewals again with backoff. Off: a token is renewed when a request needs one
  // (the SDK on Android and iOS; its desktop build sends none then).
  void SetTokenAutoRefreshEnabled(bool is_token_auto_refresh_enabled);

  // The current token, renewed first when it is about to expire or force_refresh is true.
  Future<AppCheckToken> GetAppCheckToken(bool force_refresh);
  Future<AppCheckToken> GetAppCheckTokenLastResult();

  // A new limited-use token, for one replay-protected call of your own backend.
  Future<AppCheckToken> GetLimitedUseAppCheckToken();
  Future<AppCheckToken> GetLimitedUseAppCheckTokenLastResult();

  // The listener (not owned) is told of each new token until removed; adding it twice is a no-op.
  void AddAppCheckListener(AppCheckListener* listener);
  void RemoveAppCheckListener(AppCheckListener* listener);

 private:
  explicit AppCheck(::firebase::App* app);
  AppCheck(const AppCheck&) = delete;
  AppCheck& operator=(const AppCheck&) = delete;

  friend class internal::AppCheckInternal;
  ::firebase::App* app_;
  std::shared_ptr<internal::AppCheckInternal> internal_;
};

}  // namespace app_check
}  // namespace firebase

// The SDK's guides name DebugAppCheckProviderFactory after including this header alone.
#include "firebase/app_check/debug_provider.h"

#endif  // FIREBASE_APP_CHECK_H_
