// app_check_debug_provider.cc — firebase::app_check::DebugAppCheckProviderFactory: per App, a
// provider owning an fbs_app_check of its own with fbstorage's debug provider, which does the
// exchange; its GetToken answers later, from that App Check's callback thread.
#include <atomic>
#include <cstdlib>

#include "app_check_internal.h"

namespace firebase {
namespace app_check {
namespace internal {

class DebugAppCheckProvider : public AppCheckProvider {
 public:
  DebugAppCheckProvider(App* app, const std::string& debug_token) {
    const char* sdk_variable = std::getenv("APP_CHECK_DEBUG_TOKEN");  // the C++ SDK's desktop provider's
    const char* token = !debug_token.empty() ? debug_token.c_str() : sdk_variable && *sdk_variable ? sdk_variable : nullptr;
    try {
      CoreHandle core = MakeCore(app);
      fbstorage::detail::check(fbs_app_check_set_debug_provider(core.get(), token));  // NULL: fbstorage's variables
      core_ = core;
    } catch (const fbstorage::Error& e) {
      error_ = e.what();
    }
  }
  void GetToken(std::function<void(AppCheckToken, int, const std::string&)> completion_callback) override {
    Answer(std::move(completion_callback), false);
  }
  void GetLimitedUseToken(std::function<void(AppCheckToken, int, const std::string&)> completion_callback) override {
    Answer(std::move(completion_callback), true);
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mutex_);
    core_.reset();
    error_ = kAppCheckDeletedMessage;
  }

 private:
  using Callback = std::function<void(AppCheckToken, int, const std::string&)>;

  void Answer(Callback done, bool limited_use) {
    CoreHandle core;
    std::string error;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      core = core_;
      error = error_;
    }
    if (!core) return done(AppCheckToken{"", 0}, kAppCheckErrorInvalidConfiguration, error);
    auto* pending = new Callback(std::move(done));
    // Always a new token: the asking AppCheck caches it, and asks again after a refusal.
    int rc = limited_use ? fbs_app_check_get_limited_use_token_async(core.get(), OnToken, pending)
                         : fbs_app_check_get_token_async(core.get(), 1, OnToken, pending);
    if (rc != FBS_OK) {  // the callback will not run
      std::unique_ptr<Callback> failed(pending);
      (*failed)(AppCheckToken{"", 0}, MapError(rc), fbs_last_error_message());
    }
  }

  static void OnToken(int status, const char* token, int64_t expire_time_ms, void* user_data) {
    std::unique_ptr<Callback> done(static_cast<Callback*>(user_data));
    if (status != FBS_OK) return (*done)(AppCheckToken{"", 0}, MapError(status), fbs_last_error_message());
    (*done)(AppCheckToken{token, expire_time_ms}, kAppCheckErrorNone, "");
  }

  std::mutex mutex_;
  CoreHandle core_;
  std::string error_;
};

namespace {
std::atomic<DebugAppCheckProviderFactoryInternal*> factory_internal{nullptr};  // set once, by the factory's constructor
}

AppCheckProvider* DebugAppCheckProviderFactoryInternal::CreateProvider(App* app) {
  if (!app) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  auto& provider = providers_[app];
  if (!provider) provider = std::make_shared<DebugAppCheckProvider>(app, token_);
  return provider.get();
}

void DebugAppCheckProviderFactoryInternal::SetDebugToken(const std::string& token) {
  std::lock_guard<std::mutex> lock(mutex_);
  token_ = token;
}

void DebugAppCheckProviderFactoryInternal::Release(App* app) {
  DebugAppCheckProviderFactoryInternal* self = factory_internal;
  if (!self) return;
  std::shared_ptr<DebugAppCheckProvider> provider;
  {
    std::lock_guard<std::mutex> lock(self->mutex_);
    auto found = self->providers_.find(app);
    if (found == self->providers_.end()) return;
    provider = found->second;
    self->providers_.erase(found);
    self->released_.push_back(provider);
  }
  provider->Release();
}

}  // namespace internal

DebugAppCheckProviderFactory::DebugAppCheckProviderFactory()
    : internal_(new internal::DebugAppCheckProviderFactoryInternal) {
  internal::factory_internal = internal_;
}

DebugAppCheckProviderFactory::~DebugAppCheckProviderFactory() { delete internal_; }

DebugAppCheckProviderFactory* DebugAppCheckProviderFactory::GetInstance() {
  static DebugAppCheckProviderFactory* instance = new DebugAppCheckProviderFactory;
  return instance;
}

AppCheckProvider* DebugAppCheckProviderFactory::CreateProvider(App* app) { return internal_->CreateProvider(app); }

void DebugAppCheckProviderFactory::SetDebugToken(const std::string& token) { internal_->SetDebugToken(token); }

}  // namespace app_check
}  // namespace firebase
