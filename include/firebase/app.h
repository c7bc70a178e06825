// firebase/app.h — firebase::App and firebase::AppOptions, as the Firebase C++ SDK declares
// them (app/src/include/firebase/app.h), for fbstorage's Storage and Auth.
//
// As the desktop SDK, App::Create() without options reads google-services-desktop.json, else
// google-services.json, from the working directory. Deleting an App invalidates (never deletes)
// its Storage and Auth instances: they stay valid to delete, in any order (docs/cpp.md
// "Lifetimes"). Thread safety: Create, GetInstance, GetApps and ~App lock a process-wide registry.
#ifndef FIREBASE_APP_H_
#define FIREBASE_APP_H_

#include <memory>
#include <string>
#include <vector>

#include "firebase/internal/common.h"
#include "firebase/internal/platform.h"  // as the SDK's app.h: FIREBASE_PLATFORM_LINUX and friends

namespace firebase {

namespace internal {
class AppInternal;
}  // namespace internal

enum InitResult {
  kInitResultSuccess = 0,
  kInitResultFailedMissingDependency
};

// The name of the default app ("__FIRAPP_DEFAULT", as the SDK).
extern const char* const kDefaultAppName;

class AppOptions {
 public:
  AppOptions() {}

  // Reads the options of a google-services.json text (project_info, and the first client's
  // app id and current API key, as the SDK). Into options when given, else into a new
  // AppOptions (the caller deletes it). nullptr when the text is not such a configuration
  // (the reason goes to stderr).
  static AppOptions* LoadFromJsonConfig(const char* config, AppOptions* options = nullptr);

  void set_app_id(const char* id) { app_id_ = id ? id : ""; }
  const char* app_id() const { return app_id_.c_str(); }
  void set_api_key(const char* key) { api_key_ = key ? key : ""; }
  const char* api_key() const { return api_key_.c_str(); }
  void set_messaging_sender_id(const char* sender_id) { fcm_sender_id_ = sender_id ? sender_id : ""; }
  const char* messaging_sender_id() const { return fcm_sender_id_.c_str(); }
  void set_database_url(const char* url) { database_url_ = url ? url : ""; }
  const char* database_url() const { return database_url_.c_str(); }
  void set_ga_tracking_id(const char* id) { ga_tracking_id_ = id ? id : ""; }
  const char* ga_tracking_id() const { return ga_tracking_id_.c_str(); }
  void set_storage_bucket(const char* bucket) { storage_bucket_ = bucket ? bucket : ""; }
  const char* storage_bucket() const { return storage_bucket_.c_str(); }
  void set_project_id(const char* project) { project_id_ = project ? project : ""; }
  const char* project_id() const { return project_id_.c_str(); }
  void set_client_id(const char* client_id) { client_id_ = client_id ? client_id : ""; }
  const char* client_id() const { return client_id_.c_str(); }
  // The Android package name of google-services.json's client.
  void set_package_name(const char* package_name) { package_name_ = package_name ? package_name : ""; }
  const char* package_name() const { return package_name_.c_str(); }

 private:
  std::string api_key_;
  std::string app_id_;
  std::string database_url_;
  std::string ga_tracking_id_;
  std::string fcm_sender_id_;
  std::string storage_bucket_;
  std::string project_id_;
  std::string client_id_;
  std::string package_name_;
};

// One configured Firebase app. Deleting it invalidates its Storage and Auth instances (stderr
// warns), which must still be deleted.
class App {
 public:
  ~App();

  // The default app, with the options of google-services-desktop.json or google-services.json
  // in the working directory (the first that exists); nullptr (stderr says why) when neither
  // can be read.
  static App* Create();
  // When an app of that name exists already: that app, with its options (stderr says so).
  static App* Create(const AppOptions& options);
  static App* Create(const AppOptions& options, const char* name);

  // nullptr when there is none.
  static App* GetInstance();
  static App* GetInstance(const char* name);
  static std::vector<App*> GetApps();

  const char* name() const { return name_.c_str(); }
  const AppOptions& options() const { return options_; }

  // fbstorage: the registry of this app's Storage and Auth instances.
  const std::shared_ptr<internal::AppInternal>& internal() const { return internal_; }

 private:
  App(const AppOptions& options, const char* name);
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  std::string name_;
  AppOptions options_;
  std::shared_ptr<internal::AppInternal> internal_;
};

}  // namespace firebase

#endif  // FIREBASE_APP_H_
