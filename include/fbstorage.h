/*
 * fbstorage.h — Cloud Storage for Firebase client for C, C++ and any C FFI.
 *
 * A Swift core on libcurl, exported as a C ABI from libfbstorage.so. It does what the
 * Firebase Apple SDK's FirebaseStorage module does: references, uploads as observable tasks
 * with pause / resume / cancel, metadata, listing, downloads and download URLs.
 *
 * CONVENTIONS (they hold for every function below unless its block says otherwise)
 *
 *  Status codes.  A function that can fail returns int: FBS_OK (0) or a negative
 *      fbs_error_code. Results come back through out-parameters, which are left untouched
 *      on failure. On failure fbs_last_error_message() describes the failure on the calling
 *      thread, and fbs_last_error_http_status() / fbs_last_error_server_response() carry the
 *      server's answer when there was one. Messages and server responses never contain the
 *      auth or App Check tokens a request sent, even if the server echoes them (REDACTED).
 *
 *  Handles.  fbs_storage, fbs_reference, fbs_metadata, fbs_task, fbs_snapshot and
 *      fbs_list_result are opaque. A function that creates a handle gives the caller
 *      ownership; release it with the matching *_free. *_free(NULL) is a no-op. Passing a
 *      released handle, a handle of another type, or a pointer that was never a handle is
 *      detected: the call fails with FBS_ERR_INVALID_ARGUMENT (a *_free sets the last error
 *      and returns). Handles are never reused, so a stale pointer cannot alias a new handle.
 *
 *  Strings.  Strings passed in are UTF-8 and are copied during the call; invalid UTF-8 fails
 *      with FBS_ERR_PATH for paths and URLs, FBS_ERR_INVALID_ARGUMENT otherwise.
 *      `const char *` results are borrowed: they live as long as the handle they came from.
 *      `char **` results are owned by the caller and released with fbs_string_free().
 *
 *  Threads.  Every function is thread-safe. Each fbs_storage owns two threads: a transfer
 *      thread that drives libcurl, and a callback thread on which every observer and
 *      completion callback of that storage runs — one event at a time, in order per task,
 *      with no library lock held. A callback may call any fbs_ function (pause, resume,
 *      cancel, remove observers, start another upload, blocking operations). The only call
 *      refused there is one that would wait for the callback thread itself: fbs_task_wait()
 *      on a task that has not finished returns FBS_ERR_INVALID_ARGUMENT instead of hanging.
 *
 *  Callbacks must return.  Every callback the library calls (observers, completions, token
 *      providers, the log handler, destroy callbacks) must return normally: throwing a C++
 *      exception out of it, or leaving it with longjmp/siglongjmp, unwinds through the
 *      library's frames, which leaves its locks held and its state half-changed: undefined
 *      behaviour (typically std::terminate or a deadlock). Catch exceptions inside the
 *      callback (a C++ callback: a try/catch around its body, or noexcept) and return.
 *
 *  fork().  After fork() without exec, a child may use the library only from threads it
 *      creates after the fork: the Swift runtime's internal locks remember thread ids, and
 *      the forking thread keeps its parent's in the child (Python: use the "spawn" or
 *      "forkserver" start method of multiprocessing). Storages of the parent do not work in
 *      the child (their threads are not copied).
 *
 *  Signals.  The library installs no signal handler and changes no signal disposition or
 *      process-wide mask. It never raises SIGPIPE: libcurl writes to sockets with MSG_NOSIGNAL
 *      (CURLOPT_NOSIGNAL is set, so it uses no SIGALRM either), and a download into a pipe
 *      or socket whose reader left blocks SIGPIPE on its own thread for the write and fails
 *      with EPIPE. No fbs_ function is async-signal-safe: call none from a signal handler. To
 *      close cleanly on SIGTERM or SIGINT, have the handler only set a flag or write to a pipe
 *      (or use signalfd), and from the main loop call fbs_storage_close() with
 *      FBS_CLOSE_KEEP_SESSIONS (uploads resumable later) or FBS_CLOSE_FINISH, then exit.
 *
 *  Retries.  Transport failures, HTTP 408, 429 and 5xx are retried with exponential backoff
 *      and jitter (Retry-After honoured) until the operation's deadline (see the retry-time
 *      setters); then the call fails with FBS_ERR_RETRY_LIMIT_EXCEEDED, naming the last cause.
 *      A resolver that cannot answer (DNS down) is such a failure; a host name that does not
 *      exist (NXDOMAIN) fails at once with FBS_ERR_HOST_NOT_FOUND. A loopback endpoint
 *      (localhost, 127.0.0.0/8, ::1) that refuses connections has nothing listening: such
 *      attempts fail with FBS_ERR_RETRY_LIMIT_EXCEEDED after 2 s of refusals
 *      (fbs_storage_set_loopback_refused_grace()), whatever the deadline, with a message naming
 *      host:port (and FIREBASE_STORAGE_EMULATOR_HOST when the address came from it). Input that
 *      can never succeed (a control character in a header-bound value, a file that changed)
 *      fails at once with FBS_ERR_INVALID_ARGUMENT, and an option libcurl refuses (a bug, or a
 *      libcurl without a needed feature) with FBS_ERR_INTERNAL naming the option; neither is
 *      ever retried.
 */
#ifndef FBSTORAGE_H
#define FBSTORAGE_H

#include "fbstorage/common.h"
#include "fbstorage/storage.h"
#include "fbstorage/reference.h"
#include "fbstorage/metadata.h"
#include "fbstorage/task.h"
#include "fbstorage/snapshot.h"
#include "fbstorage/operations.h"
#include "fbstorage/stream.h"
#include "fbstorage/list.h"
#include "fbstorage/auth.h"
#include "fbstorage/admin.h"
#include "fbstorage/app_check.h"

#endif /* FBSTORAGE_H */
