// firebase_test_framework.h — a stand-in for the test harness header of the same name in
// firebase-cpp-sdk (testing/test_framework), with what the SDK's Storage and Auth integration
// tests use: FirebaseTest (app_, InitializeApp, TerminateApp), WaitForCompletion, RunWithRetry,
// the flaky-section macros and the SKIP_TEST_ON_* macros as they are on Linux. Unlike the SDK's
// harness it retries nothing: a flaky section or RunWithRetry runs once, so that a failure
// shows. Written for run.sh.
#ifndef FBSTORAGE_SDK_INTEGRATION_FIREBASE_TEST_FRAMEWORK_H_
#define FBSTORAGE_SDK_INTEGRATION_FIREBASE_TEST_FRAMEWORK_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "app_framework.h"
#include "firebase/app.h"
#include "firebase/future.h"

#define FLAKY_TEST_SECTION_BEGIN() RunFlakyTestSection([&]() { (void)0
#define FLAKY_TEST_SECTION_END() })
#define SKIP_TEST_ON_ANDROID_EMULATOR ((void)0)
#define SKIP_TEST_ON_TVOS ((void)0)
// As the SDK's harness on Linux: test_info_ is the member GoogleTest's TEST_F gives each test.
#define SKIP_TEST_ON_PLATFORM_(platform)                                         \
  {                                                                            \
    app_framework::LogInfo("Skipping %s on " platform ".", test_info_->name()); \
    GTEST_SKIP();                                                              \
    return;                                                                    \
  }
#define SKIP_TEST_ON_DESKTOP SKIP_TEST_ON_PLATFORM_("desktop")
// The SDK skips its session-persistence tests on Linux (its CI cannot unlock the desktop
// keyring); run.sh's FBS_RUN_LINUX_SKIPPED=1 runs them, since the session is kept in a file here.
#ifdef FBS_RUN_LINUX_SKIPPED
#define SKIP_TEST_ON_LINUX ((void)0)
#else
#define SKIP_TEST_ON_LINUX SKIP_TEST_ON_PLATFORM_("Linux")
#endif

namespace firebase_test_framework {

class FirebaseTest : public testing::Test {
 public:
  static constexpr int kTimeoutMs = 120000;

  static void FindFirebaseConfig(const char*) {}  // App::Create() reads google-services.json

  static bool WaitForCompletion(const firebase::FutureBase& future, const char* name, int expected_error = 0) {
    bool completed = future.Wait(kTimeoutMs);
    EXPECT_TRUE(completed) << name << " did not complete";
    EXPECT_EQ(future.error(), expected_error) << name << ": " << (future.error_message() ? future.error_message() : "");
    return completed && future.error() == expected_error;
  }
  static bool WaitForCompletionAnyResult(const firebase::FutureBase& future, const char* name) {
    bool completed = future.Wait(kTimeoutMs);
    EXPECT_TRUE(completed) << name << " did not complete";
    return completed;
  }
  template <class T>
  static firebase::Future<T> RunWithRetry(std::function<firebase::Future<T>()> run) {
    firebase::Future<T> future = run();
    future.Wait(kTimeoutMs);
    return future;
  }
  static firebase::FutureBase RunWithRetry(std::function<firebase::FutureBase()> run) {
    firebase::FutureBase future = run();
    future.Wait(kTimeoutMs);
    return future;
  }
  static bool RunFlakyBlock(std::function<bool()> block, const char* = "") { return block(); }
  template <class Callback, class Context>
  static bool RunFlakyBlock(Callback callback, Context* context, const char* = "") {
    return callback(context);
  }
  void RunFlakyTestSection(std::function<void()> section) { section(); }
  int64_t GetCurrentTimeInSecondsSinceEpoch() { return app_framework::GetCurrentTimeInMicroseconds() / 1000000; }

 protected:
  // As the SDK's harness on desktop: App::Create() with no options reads google-services.json.
  void InitializeApp() {
    if (app_ == nullptr) app_ = firebase::App::Create();
  }
  void TerminateApp() {
    delete app_;
    app_ = nullptr;
  }

  firebase::App* app_ = nullptr;
};

}  // namespace firebase_test_framework

#endif  // FBSTORAGE_SDK_INTEGRATION_FIREBASE_TEST_FRAMEWORK_H_
