// firebase/app_check/debug_provider.h — the debug provider, as the Firebase C++ SDK declares it:
// exchanges a debug token registered in the Firebase console (App Check, Manage debug tokens) or
// with the emulator's --app-check-debug-token for App Check tokens. For CI and development only.
//
// The debug token: the one given to SetDebugToken, else the environment's APP_CHECK_DEBUG_TOKEN
// (the variable the C++ SDK's desktop provider reads), else FIREBASE_APP_CHECK_DEBUG_TOKEN,
// FIRAAppCheckDebugToken or AppCheckDebugToken (fbstorage/app_check.h). Without any, the
// provider's tokens fail with kAppCheckErrorInvalidConfiguration.
#ifndef FIREBASE_APP_CHECK_DEBUG_PROVIDER_H_
#define FIREBASE_APP_CHECK_DEBUG_PROVIDER_H_

#include <string>

#include "firebase/app_check.h"

namespace firebase {
namespace app_check {

namespace internal {
class DebugAppCheckProviderFactoryInternal;
}

class DebugAppCheckProviderFactory : public AppCheckProviderFactory {
 public:
  DebugAppCheckProviderFactory(const DebugAppCheckProviderFactory&) = delete;
  DebugAppCheckProviderFactory& operator=(const DebugAppCheckProviderFactory&) = delete;

  // The process's one instance (never deleted).
  static DebugAppCheckProviderFactory* GetInstance();

  // The App's debug provider, made on the first call.
  AppCheckProvider* CreateProvider(App* app) override;

  // The debug token of providers made after this call (and of none before).
  void SetDebugToken(const std::string& token);

 private:
  DebugAppCheckProviderFactory();
  ~DebugAppCheckProviderFactory() override;

  internal::DebugAppCheckProviderFactoryInternal* internal_;
};

}  // namespace app_check
}  // namespace firebase

#endif  // FIREBASE_APP_CHECK_DEBUG_PROVIDER_H_
