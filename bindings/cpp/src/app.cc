// app.cc — firebase::App: named options in a process-wide registry, and the registry of each
// app's Storage and Auth instances (invalidated with the app, deleted by their owner).
#include "firebase/app.h"

#include <map>
#include <mutex>

#include "internal.h"

namespace firebase {

const char* const kDefaultAppName = "__FIRAPP_DEFAULT";

std::atomic<void (*)(App*)> internal::app_check_hook{nullptr};

namespace {
std::mutex& AppsMutex() {
  static std::mutex mutex;
  return mutex;
}
std::map<std::string, App*>& Apps() {
  static std::map<std::string, App*> apps;
  return apps;
}
}  // namespace

App::App(const AppOptions& options, const char* name)
    : name_(name), options_(options), internal_(std::make_shared<internal::AppInternal>()) {}

App::~App() {
  {
    std::lock_guard<std::mutex> lock(AppsMutex());
    Apps().erase(name_);
  }
  std::map<void*, std::function<void()>> invalidators, owned;
  {
    std::lock_guard<std::mutex> lock(internal_->mutex);
    invalidators.swap(internal_->invalidators);
    owned.swap(internal_->owned);
    internal_->storages.clear();
    internal_->auth = nullptr;
    internal_->attach_auth = nullptr;
    internal_->app_check = nullptr;
    internal_->attach_app_check = nullptr;
  }
  for (auto& entry : owned) invalidators.erase(entry.first);
  if (!invalidators.empty())  // as the SDK: the instances are torn down, their objects stay
    firebase::internal::Log(kLogLevelWarning,
                            "firebase::App::~App: App %s deleted before %zu of its Storage/Auth/AppCheck instances: "
                            "they are invalid now; delete them too.",
                            name_.c_str(), invalidators.size());
  for (auto& entry : invalidators) entry.second();
  for (auto& entry : owned) entry.second();
}

App* App::Create() {
  AppOptions options;
  return internal::LoadDefaultAppOptions(&options) ? Create(options) : nullptr;
}

App* App::Create(const AppOptions& options) { return Create(options, kDefaultAppName); }

App* App::Create(const AppOptions& options, const char* name) {
  if (!name) return nullptr;
  std::lock_guard<std::mutex> lock(AppsMutex());
  auto found = Apps().find(name);
  if (found != Apps().end()) {  // as the SDK: the existing app, with its options
    firebase::internal::Log(kLogLevelWarning, "firebase::App::Create: App %s already created, options will not be applied.", name);
    return found->second;
  }
  App* app = new App(options, name);
  Apps()[name] = app;
  return app;
}

App* App::GetInstance() { return GetInstance(kDefaultAppName); }

App* App::GetInstance(const char* name) {
  if (!name) return nullptr;
  std::lock_guard<std::mutex> lock(AppsMutex());
  auto found = Apps().find(name);
  return found == Apps().end() ? nullptr : found->second;
}

std::vector<App*> App::GetApps() {
  std::lock_guard<std::mutex> lock(AppsMutex());
  std::vector<App*> apps;
  for (auto& entry : Apps()) apps.push_back(entry.second);
  return apps;
}

}  // namespace firebase
