package fbstorage

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"sync"
)

// LogLevel is the level of a library log line.
type LogLevel int

const (
	LogError   LogLevel = 1 // an operation or task failed for good
	LogWarning LogLevel = 2 // a retry after a failure, an upload starting over
	LogInfo    LogLevel = 3 // a resumable upload's position after asking the server
	LogDebug   LogLevel = 4 // one line per HTTP attempt
)

// String is the level's name, e.g. "WARNING".
func (l LogLevel) String() string {
	switch l {
	case LogError:
		return "ERROR"
	case LogWarning:
		return "WARNING"
	case LogInfo:
		return "INFO"
	case LogDebug:
		return "DEBUG"
	}
	return fmt.Sprintf("LogLevel(%d)", int(l))
}

var (
	logMu      sync.RWMutex
	logHandler func(LogLevel, string)
)

// SetLogHandler sets the process-wide log handler, for every storage; nil disables logging
// (the default). handler runs on the library's transfer threads, possibly on several at once:
// keep it quick and call nothing of this package from it. Lines never hold tokens, header
// values or session IDs. When SetLogHandler returns, the previous handler is not running and
// is not called again.
func SetLogHandler(handler func(level LogLevel, line string)) {
	logMu.Lock() // waits for running calls of the previous handler
	logHandler = handler
	logMu.Unlock()
	enabled := C.int(0)
	if handler != nil {
		enabled = 1
	}
	C.fbsgo_set_log_handler(enabled)
}

//export fbsgoLog
func fbsgoLog(level C.int, line *C.char) {
	logMu.RLock() // held during the call: SetLogHandler waits for it
	defer logMu.RUnlock()
	if logHandler != nil {
		guarded(func() { logHandler(LogLevel(level), C.GoString(line)) })
	}
}
