// app_check_guides.cc — the Firebase C++ App Check guides' code, unchanged between the markers,
// compiled against firebase/app_check.h (warnings as errors) and run by test_app_check.cc:
// firebase.google.com/docs/app-check/cpp/debug-provider ("Use the debug provider") and
// firebase.google.com/docs/app-check/cpp/custom-provider ("Implement the App Check interfaces",
// "Initialize App Check"). Outside the markers: what the guides leave to the reader (the
// placeholders `token` and `expireTime`, and the functions the test calls). The guides' factory
// ignores its `app` parameter, which -Wextra -Werror would refuse.
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <cstdint>
#include <string>
#include <memory>
#include <vector>

#include "firebase/app.h"
#include "firebase/app_check.h"

using firebase::App;
using firebase::app_check::AppCheckProvider;
using firebase::app_check::AppCheckProviderFactory;
using firebase::app_check::AppCheckToken;

namespace {
const std::string token = "token-from-your-backend";
const int64_t expireTime = 4102444800000;  // 2100-01-01, in milliseconds
}  // namespace

// --- custom-provider guide, "Implement the App Check interfaces" ---
class YourCustomAppCheckProvider : public AppCheckProvider {
  void GetToken(std::function<void(AppCheckToken, int, const std::string&)>
                    completion_callback) {
    // Logic to exchange proof of authenticity for an App Check token and
    // expiration time.
    // ...

    // Create AppCheckToken object.
    AppCheckToken appCheckToken;
    appCheckToken.token = token;
    appCheckToken.expire_time_millis = expireTime;

    completion_callback(appCheckToken, 0, "");

    // Or, if needing to return an error
    //completion_callback({}, error_code, "Error description");
  }
};

class YourCustomAppCheckProviderFactory : public AppCheckProviderFactory {
 public:
  AppCheckProvider* CreateProvider(App* app) {
    return new YourCustomAppCheckProvider();
  }
};
// --- end ---

// The guide's "Initialize App Check", compiled only: the test installs the guide's factory through
// KeepingFactory instead, which keeps the providers the guide's factory `new`s reachable (the
// guide never deletes them, and the sanitized run's leak checker would report them).
void InstallGuideCustomProvider() {
  // --- custom-provider guide, "Initialize App Check" ---
  firebase::app_check::AppCheck::SetAppCheckProviderFactory(
      new YourCustomAppCheckProviderFactory());
  // --- end ---
}

namespace {
class KeepingFactory : public AppCheckProviderFactory {
 public:
  AppCheckProvider* CreateProvider(App* app) override {
    providers_.emplace_back(guide_factory_.CreateProvider(app));
    return providers_.back().get();
  }

 private:
  YourCustomAppCheckProviderFactory guide_factory_;
  std::vector<std::unique_ptr<AppCheckProvider>> providers_;
};
}  // namespace

AppCheckProviderFactory* GuideCustomProviderFactory() {
  static KeepingFactory factory;
  return &factory;
}

void InstallGuideDebugProvider() {
  // --- debug-provider guide, "Use the debug provider" ---
  firebase::app_check::AppCheck::SetAppCheckProviderFactory(
      firebase::app_check::DebugAppCheckProviderFactory::GetInstance());
  // --- end ---
}
