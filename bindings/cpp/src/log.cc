// log.cc — firebase::SetLogLevel / GetLogLevel, and the C++ layer's diagnostics, which go
// through internal::Log so that the level set filters them.
#include "firebase/log.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>

#include <fbstorage/common.h>

#include "internal.h"

namespace firebase {
namespace {

std::atomic<int> g_level{kLogLevelInfo};

// fbstorage's levels (fbs_log_level) as the SDK's.
LogLevel FromLibraryLevel(int level) {
  switch (level) {
    case FBS_LOG_ERROR: return kLogLevelError;
    case FBS_LOG_WARNING: return kLogLevelWarning;
    case FBS_LOG_INFO: return kLogLevelInfo;
    default: return kLogLevelDebug;
  }
}

const char* Name(LogLevel level) {
  switch (level) {
    case kLogLevelVerbose: return "VERBOSE";
    case kLogLevelDebug: return "DEBUG";
    case kLogLevelInfo: return "INFO";
    case kLogLevelWarning: return "WARNING";
    case kLogLevelError: return "ERROR";
    default: return "ASSERT";
  }
}

void WriteLibraryLine(int level, const char* line, void*) {
  LogLevel sdk_level = FromLibraryLevel(level);
  internal::Log(sdk_level, "firebase %s: %s", Name(sdk_level), line);
}

}  // namespace

void SetLogLevel(LogLevel level) {
  g_level.store(level);
  fbs_library_set_log_handler(WriteLibraryLine, nullptr);
}

LogLevel GetLogLevel() { return static_cast<LogLevel>(g_level.load()); }

namespace internal {

void Log(LogLevel level, const char* format, ...) {
  if (level < g_level.load()) return;
  va_list arguments;
  va_start(arguments, format);
  std::vfprintf(stderr, format, arguments);
  va_end(arguments);
  std::fputc('\n', stderr);
}

}  // namespace internal
}  // namespace firebase
