// app_check_internal.h — the internals of the firebase::app_check classes: an App's fbs_app_check,
// and the bridge that asks the installed AppCheckProvider for its tokens.
#ifndef FBSTORAGE_CPP_APP_CHECK_INTERNAL_H_
#define FBSTORAGE_CPP_APP_CHECK_INTERNAL_H_

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "firebase/app_check.h"
#include "firebase/app_check/debug_provider.h"
#include "internal.h"

namespace firebase {
namespace app_check {
namespace internal {

using CoreHandle = std::shared_ptr<fbs_app_check>;

// An fbs_app_check for the app's project, app id and API key; throws fbstorage::Error.
CoreHandle MakeCore(App* app);

// fbs_error_code -> AppCheckError.
int MapError(int fbs_code);

// A token call of core (fbs_app_check_get_*_async): the Future completes with its token or its
// error, on the App Check's callback thread.
Future<AppCheckToken> FetchToken(const CoreHandle& core, bool limited_use, bool force_refresh);

class AppCheckInternal : public std::enable_shared_from_this<AppCheckInternal> {
 public:
  AppCheckInternal(App* app, std::shared_ptr<firebase::internal::AppInternal> registry, CoreHandle core)
      : app(app), registry(std::move(registry)), core_(std::move(core)) {}

  // The App's AppCheck, made on the first call (app_owned: deleted with the App); nullptr for a
  // null app or ids the core refuses.
  static AppCheck* Instance(App* app, bool app_owned);
  // Null once torn down.
  CoreHandle core() const;
  // Asks factory for the app's provider and makes it the core's (nullptr: no provider).
  void Install(AppCheckProviderFactory* factory);
  // Idempotent: drops the provider, detaches nothing (storages are torn down with the app), frees
  // the core once its last user is done.
  void TearDown();
  // The core's token listeners: told of every token it keeps, on its callback thread, and at
  // once of a fresh one it keeps already. Removal returns once a running call has returned.
  void AddListener(AppCheckListener* listener);
  void RemoveListener(AppCheckListener* listener);

  App* const app;  // compared, never dereferenced after teardown
  const std::shared_ptr<firebase::internal::AppInternal> registry;
  firebase::internal::LastResult<AppCheckToken> token_result, limited_token_result;

 private:
  mutable std::mutex core_mutex_;
  CoreHandle core_;
  std::mutex listeners_mutex_;
  std::map<AppCheckListener*, fbs_listener_handle> listeners_;
};

// AppCheck::GetInstance, for Storage::GetInstance while a factory is installed.
void EnsureInstance(App* app);

class DebugAppCheckProvider;

// The debug factory's providers, one per App, released with the App's AppCheck.
class DebugAppCheckProviderFactoryInternal {
 public:
  AppCheckProvider* CreateProvider(App* app);
  void SetDebugToken(const std::string& token);
  // Frees the core of app's debug provider, if any; the provider object stays (a call in flight
  // may hold it) and answers kAppCheckErrorInvalidConfiguration.
  static void Release(App* app);

 private:
  std::mutex mutex_;
  std::string token_;
  std::map<App*, std::shared_ptr<DebugAppCheckProvider>> providers_;
  std::vector<std::shared_ptr<DebugAppCheckProvider>> released_;
};

// What a Future says of an AppCheck torn down by its deletion or its App's.
extern const char kAppCheckDeletedMessage[];

}  // namespace internal
}  // namespace app_check
}  // namespace firebase

#endif  // FBSTORAGE_CPP_APP_CHECK_INTERNAL_H_
