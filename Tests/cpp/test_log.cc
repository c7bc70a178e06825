// test_log.cc — firebase/log.h: the level set filters the C++ layer's diagnostics and, once
// set, brings fbstorage's own log lines to stderr (one per HTTP attempt at kLogLevelDebug),
// without the credentials they travel with.
#include <gtest/gtest.h>

#include <string>

#include <fbstorage/common.h>

#include "firebase/log.h"
#include "fixtures.h"

namespace {

// After the test, the SDK's default level and no log handler, as before any SetLogLevel (the
// later tests' expected failures stay off stderr).
class LogTest : public FlavorTest {
 protected:
  void TearDown() override {
    firebase::SetLogLevel(firebase::kLogLevelInfo);
    fbs_library_set_log_handler(nullptr, nullptr);
    FlavorTest::TearDown();
  }
};

TEST_P(LogTest, TheLevelFiltersTheLayersOwnWarnings) {
  EXPECT_EQ(firebase::GetLogLevel(), firebase::kLogLevelInfo);
  firebase::SetLogLevel(firebase::kLogLevelError);
  EXPECT_EQ(firebase::GetLogLevel(), firebase::kLogLevelError);
  testing::internal::CaptureStderr();
  EXPECT_EQ(firebase::App::Create(app->options(), app->name()), app);  // "already created": a warning
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");

  firebase::SetLogLevel(firebase::kLogLevelWarning);
  testing::internal::CaptureStderr();
  EXPECT_EQ(firebase::App::Create(app->options(), app->name()), app);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("already created, options will not be applied"), std::string::npos);
}

TEST_P(LogTest, DebugWritesEachHttpAttemptWithoutItsCredentials) {
  firebase::storage::StorageReference ref = storage->GetReference("logged/missing.bin");
  firebase::SetLogLevel(firebase::kLogLevelDebug);
  testing::internal::CaptureStderr();
  Completed(ref.GetMetadata());
  std::string written = testing::internal::GetCapturedStderr();
  EXPECT_NE(written.find("firebase DEBUG: "), std::string::npos) << written;
  EXPECT_NE(written.find("GET "), std::string::npos) << written;
  EXPECT_NE(written.find("logged%2Fmissing.bin"), std::string::npos) << written;
  EXPECT_NE(written.find("404"), std::string::npos) << written;
  EXPECT_EQ(written.find("Authorization"), std::string::npos) << written;

  firebase::SetLogLevel(firebase::kLogLevelInfo);  // an attempt is a DEBUG line
  testing::internal::CaptureStderr();
  Completed(ref.GetMetadata());
  EXPECT_EQ(testing::internal::GetCapturedStderr().find("firebase DEBUG"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Flavors, LogTest, FBS_BOTH_FLAVORS);

}  // namespace
