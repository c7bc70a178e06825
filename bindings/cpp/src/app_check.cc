// app_check.cc — firebase::app_check::AppCheck: one fbs_app_check per App, whose custom provider
// asks the installed factory's AppCheckProvider; the App's storages send its tokens, and its
// listeners are the core's token listeners (told of every token it keeps, whatever its source).
#include "firebase/app_check.h"


#include "app_check_internal.h"

namespace firebase {
namespace app_check {

AppCheckListener::~AppCheckListener() {}
AppCheckProvider::~AppCheckProvider() {}
AppCheckProviderFactory::~AppCheckProviderFactory() {}

void AppCheckProvider::GetLimitedUseToken(std::function<void(AppCheckToken, int, const std::string&)> completion_callback) {
  GetToken(std::move(completion_callback));
}

namespace internal {

const char kAppCheckDeletedMessage[] = "this AppCheck, or its App, was deleted";

namespace {

// The factory of every App, and the AppCheck instances it is installed in.
struct Installed {
  std::mutex mutex;
  AppCheckProviderFactory* factory = nullptr;
  std::set<std::shared_ptr<AppCheckInternal>> instances;
};
Installed& Global() {
  static Installed installed;
  return installed;
}

// One provider request of the core, answered exactly once: by the provider's callback, or, when
// the provider drops its callback without calling it, with a failure (never a silent wait).
class PendingRequest {
 public:
  explicit PendingRequest(fbs_app_check_request* request) : request_(request) {}
  ~PendingRequest() {
    if (!answered_.exchange(true))
      fbs_app_check_request_fail(request_, "the AppCheckProvider dropped its completion callback without calling it");
  }
  void Answer(const AppCheckToken& token, int error, const std::string& message) {
    if (answered_.exchange(true)) return;  // a provider calling back twice: the first answer stands
    if (error != kAppCheckErrorNone) {
      std::string text = "error " + std::to_string(error) + (message.empty() ? "" : ": " + message);
      fbs_app_check_request_fail(request_, text.c_str());
      return;
    }
    fbs_app_check_request_complete(request_, token.token.c_str(), token.expire_time_millis);
  }

 private:
  fbs_app_check_request* const request_;
  std::atomic<bool> answered_{false};
};

// user_data: the AppCheckProvider (the factory's, alive while installed).
void AskProvider(int limited_use, fbs_app_check_request* request, void* user_data) {
  auto* provider = static_cast<AppCheckProvider*>(user_data);
  auto pending = std::make_shared<PendingRequest>(request);
  auto callback = [pending](AppCheckToken token, int error, const std::string& message) {
    pending->Answer(token, error, message);
  };
  if (limited_use)
    provider->GetLimitedUseToken(callback);
  else
    provider->GetToken(callback);
}

// user_data: the AppCheckListener (the caller's, registered until removed).
void TellListener(const char* token, int64_t expire_time_ms, void* user_data) {
  static_cast<AppCheckListener*>(user_data)->OnAppCheckTokenChanged(AppCheckToken{token, expire_time_ms});
}

void Report(const char* what, const std::string& message) {
  firebase::internal::Log(kLogLevelWarning, "firebase::app_check::AppCheck::%s: %s", what, message.c_str());
}

}  // namespace

void EnsureInstance(App* app) { AppCheckInternal::Instance(app, true); }

CoreHandle MakeCore(App* app) {
  const AppOptions& options = app->options();
  const char* api_key = *options.api_key() ? options.api_key() : nullptr;
  fbs_app_check* core = nullptr;
  fbstorage::detail::check(fbs_app_check_new(options.project_id(), options.app_id(), api_key, &core));
  fbs_app_check_set_token_auto_refresh_enabled(core, 1);  // the SDK's default
  return CoreHandle(core, fbs_app_check_free);
}

int MapError(int fbs_code) {
  switch (fbs_code) {
    case FBS_OK: return kAppCheckErrorNone;
    case FBS_ERR_APP_CHECK_NO_PROVIDER:
    case FBS_ERR_APP_CHECK_ATTESTATION_FAILED:
    case FBS_ERR_INVALID_ARGUMENT: return kAppCheckErrorInvalidConfiguration;
    case FBS_ERR_RETRY_LIMIT_EXCEEDED: return kAppCheckErrorServerUnreachable;
    default: return kAppCheckErrorUnknown;
  }
}

namespace {
void OnToken(int status, const char* token, int64_t expire_time_ms, void* user_data) {
  std::unique_ptr<firebase::internal::Promise<AppCheckToken>> promise(
      static_cast<firebase::internal::Promise<AppCheckToken>*>(user_data));
  if (status != FBS_OK) return promise->Fail(MapError(status), fbs_last_error_message());
  promise->Succeed(AppCheckToken{token, expire_time_ms});
}
}  // namespace

Future<AppCheckToken> FetchToken(const CoreHandle& core, bool limited_use, bool force_refresh) {
  if (!core) return firebase::internal::FailedFuture<AppCheckToken>(kAppCheckErrorInvalidConfiguration, kAppCheckDeletedMessage);
  auto* promise = new firebase::internal::Promise<AppCheckToken>;
  Future<AppCheckToken> future = promise->future();
  int rc = limited_use ? fbs_app_check_get_limited_use_token_async(core.get(), OnToken, promise)
                       : fbs_app_check_get_token_async(core.get(), force_refresh ? 1 : 0, OnToken, promise);
  if (rc != FBS_OK) {  // the callback will not run
    promise->Fail(MapError(rc), fbs_last_error_message());
    delete promise;
  }
  return future;
}

CoreHandle AppCheckInternal::core() const {
  std::lock_guard<std::mutex> lock(core_mutex_);
  return core_;
}

void AppCheckInternal::Install(AppCheckProviderFactory* factory) {
  CoreHandle core = this->core();
  if (!core) return;
  AppCheckProvider* provider = factory ? factory->CreateProvider(app) : nullptr;
  int rc = fbs_app_check_set_custom_provider(core.get(), provider ? AskProvider : nullptr, provider);
  if (rc != FBS_OK) Report("SetAppCheckProviderFactory", fbs_last_error_message());
}

void AppCheckInternal::TearDown() {
  CoreHandle core;
  {
    std::lock_guard<std::mutex> lock(core_mutex_);
    core.swap(core_);
  }
  if (core) fbs_app_check_set_custom_provider(core.get(), nullptr, nullptr);
  std::map<AppCheckListener*, fbs_listener_handle> registered;
  {
    std::lock_guard<std::mutex> lock(listeners_mutex_);
    registered.swap(listeners_);
  }
  // Storages may keep the core: its listeners go now, the caller's objects being about to.
  if (core)
    for (auto& entry : registered) fbs_app_check_remove_token_listener(core.get(), entry.second);
  {
    std::lock_guard<std::mutex> lock(Global().mutex);
    Global().instances.erase(shared_from_this());
  }
  DebugAppCheckProviderFactoryInternal::Release(app);
}

void AppCheckInternal::AddListener(AppCheckListener* listener) {
  CoreHandle core = this->core();
  if (!listener || !core) return;
  std::lock_guard<std::mutex> lock(listeners_mutex_);  // held: adding twice stays a no-op
  if (listeners_.count(listener)) return;
  fbs_listener_handle handle = 0;
  if (fbs_app_check_add_token_listener(core.get(), TellListener, listener, nullptr, &handle) != FBS_OK)
    return Report("AddAppCheckListener", fbs_last_error_message());
  listeners_[listener] = handle;
}

void AppCheckInternal::RemoveListener(AppCheckListener* listener) {
  CoreHandle core = this->core();
  fbs_listener_handle handle = 0;
  {
    std::lock_guard<std::mutex> lock(listeners_mutex_);
    auto found = listeners_.find(listener);
    if (found == listeners_.end()) return;
    handle = found->second;
    listeners_.erase(found);
  }
  // Unlocked: removal waits for a running call of the listener, which may add or remove one.
  if (core) fbs_app_check_remove_token_listener(core.get(), handle);
}

}  // namespace internal

AppCheck::AppCheck(App* app) : app_(app) {}

AppCheck* AppCheck::GetInstance(App* app) { return internal::AppCheckInternal::Instance(app, false); }

namespace internal {

AppCheck* AppCheckInternal::Instance(App* app, bool app_owned) {
  if (!app) return nullptr;
  firebase::internal::AppInternal& registry = *app->internal();
  std::lock_guard<std::mutex> lock(registry.mutex);
  if (registry.app_check) return static_cast<AppCheck*>(registry.app_check);
  std::shared_ptr<AppCheckInternal> state;
  try {
    state = std::make_shared<AppCheckInternal>(app, app->internal(), MakeCore(app));
  } catch (const fbstorage::Error& e) {
    Report("GetInstance", e.what());
    return nullptr;
  }
  auto* app_check = new AppCheck(app);
  app_check->internal_ = state;
  {
    std::lock_guard<std::mutex> global(Global().mutex);
    state->Install(Global().factory);
    Global().instances.insert(state);
  }
  // The app's storages, present and future, send this App Check's tokens.
  std::weak_ptr<AppCheckInternal> weak = state;
  registry.attach_app_check = [weak](fbstorage::Storage& storage) {
    auto alive = weak.lock();
    auto core = alive ? alive->core() : nullptr;
    if (core && fbs_storage_use_app_check(storage.handle(), core.get()) != FBS_OK)
      Report("GetInstance", fbs_last_error_message());
  };
  for (auto& entry : registry.storages)
    if (auto core = entry.second.core.lock()) registry.attach_app_check(*core);
  registry.app_check = app_check;
  registry.invalidators[app_check] = [weak] {
    if (auto alive = weak.lock()) alive->TearDown();
  };
  if (app_owned) registry.owned[app_check] = [app_check] { delete app_check; };
  return app_check;
}

}  // namespace internal

AppCheck::~AppCheck() {
  firebase::internal::AppInternal& registry = *internal_->registry;
  {
    std::lock_guard<std::mutex> lock(registry.mutex);
    if (registry.app_check == this) {
      registry.attach_app_check = nullptr;
      registry.app_check = nullptr;
      for (auto& entry : registry.storages)
        if (auto core = entry.second.core.lock()) fbs_storage_use_app_check(core->handle(), nullptr);
    }
    registry.invalidators.erase(this);
    registry.owned.erase(this);
  }
  internal_->TearDown();
}

void AppCheck::SetAppCheckProviderFactory(AppCheckProviderFactory* factory) {
  std::lock_guard<std::mutex> lock(internal::Global().mutex);
  internal::Global().factory = factory;
  firebase::internal::app_check_hook = factory ? &internal::EnsureInstance : nullptr;
  for (auto& instance : internal::Global().instances) instance->Install(factory);
}

App* AppCheck::app() { return app_; }

void AppCheck::SetTokenAutoRefreshEnabled(bool is_token_auto_refresh_enabled) {
  if (internal::CoreHandle core = internal_->core()) fbs_app_check_set_token_auto_refresh_enabled(core.get(), is_token_auto_refresh_enabled);
}

Future<AppCheckToken> AppCheck::GetAppCheckToken(bool force_refresh) {
  return internal_->token_result.set(internal::FetchToken(internal_->core(), false, force_refresh));
}
Future<AppCheckToken> AppCheck::GetAppCheckTokenLastResult() { return internal_->token_result.get(); }

Future<AppCheckToken> AppCheck::GetLimitedUseAppCheckToken() {
  return internal_->limited_token_result.set(internal::FetchToken(internal_->core(), true, false));
}
Future<AppCheckToken> AppCheck::GetLimitedUseAppCheckTokenLastResult() { return internal_->limited_token_result.get(); }

void AppCheck::AddAppCheckListener(AppCheckListener* listener) { internal_->AddListener(listener); }

void AppCheck::RemoveAppCheckListener(AppCheckListener* listener) { internal_->RemoveListener(listener); }

}  // namespace app_check
}  // namespace firebase
