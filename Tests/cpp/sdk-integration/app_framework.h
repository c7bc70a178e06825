// app_framework.h — a stand-in for the test harness header of the same name in firebase-cpp-sdk
// (testing/test_framework, not part of the SDK's API), with what the SDK's Storage and Auth
// integration tests call: logging, ProcessEvents, PathForResource, the clock. Written for run.sh.
#ifndef FBSTORAGE_SDK_INTEGRATION_APP_FRAMEWORK_H_
#define FBSTORAGE_SDK_INTEGRATION_APP_FRAMEWORK_H_

#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace app_framework {

inline void Log(FILE* out, const char* format, va_list args) {
  std::vfprintf(out, format, args);
  std::fputc('\n', out);
}
inline void LogDebug(const char* format, ...) {
  va_list args;
  va_start(args, format);
  Log(stdout, format, args);
  va_end(args);
}
inline void LogInfo(const char* format, ...) {
  va_list args;
  va_start(args, format);
  Log(stdout, format, args);
  va_end(args);
}
inline void LogWarning(const char* format, ...) {
  va_list args;
  va_start(args, format);
  Log(stdout, format, args);
  va_end(args);
}
inline void LogError(const char* format, ...) {
  va_list args;
  va_start(args, format);
  Log(stderr, format, args);
  va_end(args);
}

// The SDK's desktop harness has no event loop either: it waits, and reports no exit request.
inline bool ProcessEvents(int milliseconds) {
  std::this_thread::sleep_for(std::chrono::milliseconds(milliseconds));
  return false;
}

// Where the test writes its local files: $SDK_IT_DIR/ (run.sh's working directory).
inline std::string PathForResource() {
  const char* dir = std::getenv("SDK_IT_DIR");
  return std::string(dir ? dir : ".") + "/";
}

inline int64_t GetCurrentTimeInMicroseconds() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace app_framework

#endif  // FBSTORAGE_SDK_INTEGRATION_APP_FRAMEWORK_H_
