// test_app.cc — what needs no server: AppOptions from google-services.json text and files
// (App::Create() reads them from the working directory, as the desktop SDK), ModuleInitializer,
// and the platform macros.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "firebase/app.h"
#include "firebase/auth.h"
#include "firebase/internal/platform.h"
#include "firebase/storage.h"
#include "firebase/util.h"
#include "fixtures.h"

static_assert(FIREBASE_PLATFORM_LINUX == 1 && FIREBASE_PLATFORM_DESKTOP && !FIREBASE_PLATFORM_MOBILE &&
                  !FIREBASE_PLATFORM_ANDROID && !FIREBASE_PLATFORM_IOS && !FIREBASE_PLATFORM_OSX &&
                  !FIREBASE_PLATFORM_WINDOWS && !FIREBASE_PLATFORM_TVOS && !FIREBASE_PLATFORM_UNKNOWN,
              "fbstorage builds for Linux, a desktop platform");

namespace {

// A google-services.json as the Firebase console writes it (values made up): an iOS-only
// client first, which the SDK skips (no Android package name), then the Android one.
std::string GoogleServicesJson(const std::string& project_id) {
  return R"({
  "project_info": {
    "project_number": "123456789012",
    "firebase_url": "https://)" + project_id + R"(.firebaseio.com",
    "project_id": ")" + project_id + R"(",
    "storage_bucket": ")" + project_id + R"(.appspot.com"
  },
  "client": [
    {"client_info": {"mobilesdk_app_id": "1:123456789012:ios:skipped"}, "api_key": [{"current_key": "skipped"}]},
    {
      "client_info": {
        "mobilesdk_app_id": "1:123456789012:android:abcdef",
        "android_client_info": {"package_name": "com.example.app"}
      },
      "oauth_client": [{"client_id": "x.apps.googleusercontent.com", "client_type": 3}],
      "api_key": [{"current_key": "AIzaSy-made-up-key"}],
      "services": {"analytics_service": {"status": 2, "analytics_property": {"tracking_id": "UA-1-1"}},
                   "appinvite_service": {"status": 1}}
    }
  ],
  "configuration_version": "1"
})";
}

// Runs in a fresh temporary directory, restoring the working directory after.
class InTemporaryDirectory {
 public:
  InTemporaryDirectory() {
    char here[4096];
    previous_ = getcwd(here, sizeof here) ? here : "/";
    char path[] = "/tmp/fbstorage-cpp-cwd-XXXXXX";
    dir_ = mkdtemp(path) ? path : "";
    EXPECT_EQ(chdir(dir_.c_str()), 0);
  }
  ~InTemporaryDirectory() {
    for (const char* name : {"google-services.json", "google-services-desktop.json"}) unlink(name);
    EXPECT_EQ(chdir(previous_.c_str()), 0);
    rmdir(dir_.c_str());
  }
  void Write(const char* name, const std::string& text) { std::ofstream(name, std::ios::binary) << text; }

 private:
  std::string previous_, dir_;
};

}  // namespace

TEST(AppOptions, LoadFromJsonConfigReadsWhatTheSdkReads) {
  firebase::AppOptions options;
  options.set_api_key("replaced");
  ASSERT_EQ(firebase::AppOptions::LoadFromJsonConfig(GoogleServicesJson("my-project").c_str(), &options), &options);
  EXPECT_STREQ(options.project_id(), "my-project");
  EXPECT_STREQ(options.storage_bucket(), "my-project.appspot.com");
  EXPECT_STREQ(options.database_url(), "https://my-project.firebaseio.com");
  EXPECT_STREQ(options.messaging_sender_id(), "123456789012");
  EXPECT_STREQ(options.app_id(), "1:123456789012:android:abcdef");
  EXPECT_STREQ(options.api_key(), "AIzaSy-made-up-key");
  EXPECT_STREQ(options.package_name(), "com.example.app");
  EXPECT_STREQ(options.ga_tracking_id(), "UA-1-1");

  firebase::AppOptions* allocated = firebase::AppOptions::LoadFromJsonConfig(GoogleServicesJson("other").c_str());
  ASSERT_NE(allocated, nullptr);
  EXPECT_STREQ(allocated->project_id(), "other");
  delete allocated;
}

TEST(AppOptions, LoadFromJsonConfigRefusesWhatIsNotAConfiguration) {
  std::string deep(100000, '[');  // bounded: refused, no stack overflow
  for (const std::string& bad :
       {std::string("{"), std::string("[]"), std::string(R"({"client": []})"), deep,
        std::string(R"({"project_info": {"project_id": "p"}, "client": []})"),                 // no Android client
        std::string(R"({"project_info": {"project_id": 7}, "client": [{"client_info": {"mobilesdk_app_id": "a",)"
                    R"("android_client_info": {"package_name": "p"}}}]})"),                  // a wrong type
        std::string(R"({"project_info": {}, "client": [{"client_info": "text"}]})")}) {
    firebase::AppOptions options;
    options.set_project_id("kept");
    EXPECT_EQ(firebase::AppOptions::LoadFromJsonConfig(bad.c_str(), &options), nullptr) << bad.substr(0, 80);
    EXPECT_STREQ(options.project_id(), "kept");  // untouched on failure
  }
  EXPECT_EQ(firebase::AppOptions::LoadFromJsonConfig(nullptr), nullptr);
}

TEST(AppCreate, WithoutOptionsReadsTheWorkingDirectorysConfiguration) {
  InTemporaryDirectory cwd;
  EXPECT_EQ(firebase::App::Create(), nullptr);  // neither file: stderr names both
  cwd.Write("google-services.json", GoogleServicesJson("from-json"));
  firebase::App* app = firebase::App::Create();
  ASSERT_NE(app, nullptr);
  EXPECT_STREQ(app->name(), firebase::kDefaultAppName);
  EXPECT_STREQ(app->options().project_id(), "from-json");
  EXPECT_STREQ(app->options().api_key(), "AIzaSy-made-up-key");
  delete app;
  cwd.Write("google-services-desktop.json", GoogleServicesJson("from-desktop"));  // preferred
  app = firebase::App::Create();
  ASSERT_NE(app, nullptr);
  EXPECT_STREQ(app->options().project_id(), "from-desktop");
  delete app;
  cwd.Write("google-services-desktop.json", "not json");  // unreadable: the next file
  app = firebase::App::Create();
  ASSERT_NE(app, nullptr);
  EXPECT_STREQ(app->options().project_id(), "from-json");
  delete app;
}

// The SDK's integration tests initialize Auth and Storage through a ModuleInitializer.
TEST(ModuleInitializer, RunsTheInitializersInOrder) {
  firebase::AppOptions options;
  options.set_api_key("test-api-key");
  options.set_project_id("demo-project");
  options.set_storage_bucket(kBucket);
  firebase::App* app = firebase::App::Create(options, "module-initializer");
  ASSERT_NE(app, nullptr);
  struct Targets {
    firebase::auth::Auth* auth = nullptr;
    firebase::storage::Storage* storage = nullptr;
    int runs = 0;
  } targets;
  firebase::ModuleInitializer initializer;
  EXPECT_EQ(initializer.InitializeLastResult().status(), firebase::kFutureStatusInvalid);
  const firebase::ModuleInitializer::InitializerFn both[] = {
      [](firebase::App* app, void* context) {
        firebase::InitResult result;
        static_cast<Targets*>(context)->auth = firebase::auth::Auth::GetAuth(app, &result);
        static_cast<Targets*>(context)->runs++;
        return result;
      },
      [](firebase::App* app, void* context) {
        firebase::InitResult result;
        static_cast<Targets*>(context)->storage = firebase::storage::Storage::GetInstance(app, &result);
        static_cast<Targets*>(context)->runs++;
        return result;
      }};
  firebase::Future<void> done = initializer.Initialize(app, &targets, both, 2);
  EXPECT_EQ(done.status(), firebase::kFutureStatusComplete);
  EXPECT_EQ(done.error(), 0);
  EXPECT_EQ(initializer.InitializeLastResult(), done);
  EXPECT_NE(targets.auth, nullptr);
  EXPECT_NE(targets.storage, nullptr);

  // A failure stops the run; the error is the number of initializers that did not succeed.
  const firebase::ModuleInitializer::InitializerFn failing[] = {
      [](firebase::App*, void* context) {
        static_cast<Targets*>(context)->runs++;
        return firebase::kInitResultSuccess;
      },
      [](firebase::App*, void* context) {
        static_cast<Targets*>(context)->runs++;
        return firebase::kInitResultFailedMissingDependency;
      },
      [](firebase::App*, void* context) {
        static_cast<Targets*>(context)->runs++;
        return firebase::kInitResultSuccess;
      }};
  targets.runs = 0;
  firebase::Future<void> failed = initializer.Initialize(app, &targets, failing, 3);
  EXPECT_EQ(failed.status(), firebase::kFutureStatusComplete);
  EXPECT_EQ(failed.error(), 2);
  EXPECT_NE(std::string(failed.error_message()).find("initializer 1 failed"), std::string::npos);
  EXPECT_EQ(targets.runs, 2);
  EXPECT_EQ(initializer.Initialize(nullptr, &targets, failing[0]).error(), 1);  // no app
  EXPECT_EQ(initializer.Initialize(app, &targets, nullptr, 2).error(), 2);

  delete targets.storage;
  delete targets.auth;
  delete app;
}
