// firebase/log.h — the log level, as the Firebase C++ SDK declares it
// (app/src/include/firebase/log.h).
//
// What is logged, on stderr: the C++ layer's own diagnostics (a void setter refusing a value,
// an App deleted before its instances, a configuration that does not load: warnings and
// errors), and, once SetLogLevel has been called, fbstorage's log lines (fbs_log_level:
// an operation that failed for good, a retry, a resumable upload's position, one line per
// HTTP attempt at kLogLevelDebug and below), without credentials. A line is written when its
// level is at or above the one set. SetLogLevel replaces a handler set with
// fbs_library_set_log_handler, and one set afterwards replaces it.
// Thread safety: both calls may be made from any thread.
#ifndef FIREBASE_LOG_H_
#define FIREBASE_LOG_H_

namespace firebase {

enum LogLevel {
  kLogLevelVerbose = 0,
  kLogLevelDebug,
  kLogLevelInfo,
  kLogLevelWarning,
  kLogLevelError,
  kLogLevelAssert,
};

// Sets the least level written; kLogLevelInfo until it is called, as in the SDK.
void SetLogLevel(LogLevel level);

// The least level written.
LogLevel GetLogLevel();

}  // namespace firebase

#endif  // FIREBASE_LOG_H_
