// fbstorage.hpp — the C API of fbstorage.h the C++17 way: header-only, namespace fbstorage.
//
// Ownership.  Every C handle has one owning type here (Storage, Reference, Metadata, Task,
//     Snapshot, ListResult, Auth, User): move-only, released by its destructor on every path;
//     a moved-from object holds no handle (calls on it throw FBS_ERR_INVALID_ARGUMENT).
//     Borrowed handles (a callback's snapshot, a snapshot's metadata) are *View types, valid
//     for as long as what lent them.
// Strings.  std::string_view in (a view with an embedded NUL is refused at once with
//     FBS_ERR_INVALID_ARGUMENT: the C API would silently cut it), std::string out, and
//     std::optional<std::string> where the C API may answer "absent".
// Errors.  Exceptions: every call that fails throws fbstorage::Error (code, message, HTTP
//     status, server response). Exceptions, not expected-style results, because constructors
//     acquire handles and can fail, std::expected needs C++23, and the blocking calls mirror
//     the Firebase SDKs' "throws"/"Future error" split. The completions of *_async calls cannot
//     throw into the caller: they receive a Result<T> (value or Error; value() rethrows).
// Callbacks.  Observers, listeners and completions are std::function. They run on the
//     storage's (or auth's) callback thread, one at a time, as fbstorage.h says; they must not
//     throw (an exception escaping a callback calls std::terminate: it cannot cross the C ABI).
// Threads.  Every C function is thread-safe, so concurrent calls on one object are safe, except
//     that moving, assigning or destroying an object needs exclusive access (as for std types).
#ifndef FBSTORAGE_HPP
#define FBSTORAGE_HPP

#include <fbstorage.h>

#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace fbstorage {

// A failed call: an fbs_error_code with the library's message and, when a server answered,
// its HTTP status and body (never tokens: the library redacts them).
class Error : public std::runtime_error {
 public:
  Error(int code, const std::string& message, int http_status = 0, std::string server_response = {})
      : std::runtime_error(message), code_(code), http_status_(http_status),
        server_response_(std::move(server_response)) {}
  int code() const noexcept { return code_; }
  // The code's name, e.g. "FBS_ERR_OBJECT_NOT_FOUND".
  const char* name() const noexcept { return fbs_error_name(code_); }
  int http_status() const noexcept { return http_status_; }
  const std::string& server_response() const noexcept { return server_response_; }

 private:
  int code_;
  int http_status_;
  std::string server_response_;
};

// The outcome of an *_async call, as its completion receives it.
template <class T>
class Result {
 public:
  Result(T value) : outcome_(std::move(value)) {}  // NOLINT: implicit, as std::expected
  Result(Error error) : outcome_(std::move(error)) {}  // NOLINT
  bool ok() const noexcept { return outcome_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }
  // nullptr on success.
  const Error* error() const noexcept { return std::get_if<Error>(&outcome_); }
  // The value; throws the Error on failure.
  T& value() & { rethrow_failure(); return std::get<T>(outcome_); }
  T&& value() && { rethrow_failure(); return std::get<T>(std::move(outcome_)); }

 private:
  void rethrow_failure() const { if (const Error* e = error()) throw *e; }
  std::variant<T, Error> outcome_;
};

template <>
class Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)) {}  // NOLINT
  bool ok() const noexcept { return !error_; }
  explicit operator bool() const noexcept { return ok(); }
  const Error* error() const noexcept { return error_ ? &*error_ : nullptr; }
  void value() const { if (error_) throw *error_; }

 private:
  std::optional<Error> error_;
};

namespace detail {

// The calling thread's last failure as an Error.
inline Error last_error(int code) {
  const char* response = fbs_last_error_server_response();
  return Error(code, fbs_last_error_message(), fbs_last_error_http_status(), response ? response : "");
}

inline void check(int rc) {
  if (rc != FBS_OK) throw last_error(rc);
}

inline std::string to_string(const char* s) { return s ? std::string(s) : std::string(); }
inline std::optional<std::string> to_optional(const char* s) {
  return s ? std::optional<std::string>(s) : std::nullopt;
}

// A NUL-terminated copy of a view for the C API.
class CString {
 public:
  explicit CString(std::string_view view) : value_(view) {
    if (value_.find('\0') != std::string::npos)
      throw Error(FBS_ERR_INVALID_ARGUMENT, "a string argument contains a NUL character");
  }
  const char* get() const noexcept { return value_.c_str(); }

 private:
  std::string value_;
};

// As CString, with nullopt passed to C as NULL.
class OptionalCString {
 public:
  explicit OptionalCString(std::optional<std::string_view> view) {
    if (view) value_.emplace(*view);
  }
  const char* get() const noexcept { return value_ ? value_->get() : nullptr; }

 private:
  std::optional<CString> value_;
};

// A string the library handed over (char **): released with fbs_string_free.
inline std::string take_string(char* s) {
  std::unique_ptr<char, void (*)(char*)> owned(s, fbs_string_free);
  return to_string(s);
}

template <class Handle, void (*Free)(Handle*)>
struct Releaser {
  void operator()(Handle* h) const noexcept { Free(h); }
};
template <class Handle, void (*Free)(Handle*)>
using Owned = std::unique_ptr<Handle, Releaser<Handle, Free>>;

// A View (a class reading a borrowed handle) that owns its handle: move-only; a moved-from one
// reads nothing.
template <class View, class Handle, void (*Free)(Handle*)>
class OwningView : public View {
 public:
  explicit OwningView(Handle* h) noexcept : View(h), owned_(h) {}
  OwningView(OwningView&& other) noexcept : View(other.owned_.get()), owned_(std::move(other.owned_)) {
    other.View::operator=(View(nullptr));
  }
  OwningView& operator=(OwningView&& other) noexcept {
    owned_ = std::move(other.owned_);
    View::operator=(View(owned_.get()));
    other.View::operator=(View(nullptr));
    return *this;
  }

 protected:
  Handle* owned_handle() const noexcept { return owned_.get(); }

 private:
  Owned<Handle, Free> owned_;
};

template <class Handle>
Handle* require(Handle* h) {
  if (!h) throw Error(FBS_ERR_INVALID_ARGUMENT, "the object was moved from");
  return h;
}

// Runs a user callback across the C ABI: an exception cannot cross it.
template <class Fn, class... Args>
void call_noexcept(Fn& fn, Args&&... args) noexcept {
  fn(std::forward<Args>(args)...);
}

// The completion of one *_async call: created at the call, released by the trampoline (the C
// API runs each completion exactly once) or at once when the call fails to start.
template <class T>
using Completion = std::function<void(Result<T>)>;

// Callbacks removed while one of ours runs on this thread are released when it returns: the
// running one may be among them (the C API's remove calls do not wait on a callback thread).
inline std::vector<std::shared_ptr<void>>*& retired_here() {
  thread_local std::vector<std::shared_ptr<void>>* retired = nullptr;
  return retired;
}
inline void retire(std::shared_ptr<void> callback) {
  if (auto* retired = retired_here()) retired->push_back(std::move(callback));
}
// Runs a registered callback (user_data points to it) in a scope that defers such releases.
template <class Fn, class... Args>
void run_registered(void* user_data, Args&&... args) noexcept {
  std::vector<std::shared_ptr<void>> retired;
  auto* outer = retired_here();
  if (!outer) retired_here() = &retired;
  call_noexcept(*static_cast<Fn*>(user_data), std::forward<Args>(args)...);
  retired_here() = outer;
}

template <class T, class Start>
void start_async(Completion<T> completion, Start start) {
  auto* owned = new Completion<T>(std::move(completion));
  int rc = start(static_cast<void*>(owned));
  if (rc != FBS_OK) {
    delete owned;
    throw last_error(rc);
  }
}

template <class T>
void complete(void* user_data, Result<T> result) noexcept {
  std::unique_ptr<Completion<T>> completion(static_cast<Completion<T>*>(user_data));
  call_noexcept(*completion, std::move(result));
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Metadata
// ---------------------------------------------------------------------------------------------

// Reads a metadata handle it does not own (a snapshot's); see Metadata for the owner.
class MetadataView {
 public:
  explicit MetadataView(const fbs_metadata* m) noexcept : m_(m) {}

  std::optional<std::string> cache_control() const { return detail::to_optional(fbs_metadata_cache_control(m_)); }
  std::optional<std::string> content_disposition() const { return detail::to_optional(fbs_metadata_content_disposition(m_)); }
  std::optional<std::string> content_encoding() const { return detail::to_optional(fbs_metadata_content_encoding(m_)); }
  std::optional<std::string> content_language() const { return detail::to_optional(fbs_metadata_content_language(m_)); }
  std::optional<std::string> content_type() const { return detail::to_optional(fbs_metadata_content_type(m_)); }
  std::optional<std::string> bucket() const { return detail::to_optional(fbs_metadata_bucket(m_)); }
  std::optional<std::string> full_path() const { return detail::to_optional(fbs_metadata_full_path(m_)); }
  std::optional<std::string> name() const { return detail::to_optional(fbs_metadata_name(m_)); }
  std::optional<std::string> md5_hash() const { return detail::to_optional(fbs_metadata_md5_hash(m_)); }
  std::optional<std::string> crc32c() const { return detail::to_optional(fbs_metadata_crc32c(m_)); }
  std::optional<int64_t> size() const { return count(fbs_metadata_size(m_)); }
  std::optional<int64_t> generation() const { return count(fbs_metadata_generation(m_)); }
  std::optional<int64_t> metageneration() const { return count(fbs_metadata_metageneration(m_)); }
  // Milliseconds since the Unix epoch.
  std::optional<int64_t> time_created_ms() const { return time(fbs_metadata_time_created_ms(m_)); }
  std::optional<int64_t> updated_ms() const { return time(fbs_metadata_updated_ms(m_)); }
  std::optional<std::string> custom(std::string_view key) const {
    return detail::to_optional(fbs_metadata_custom(m_, detail::CString(key).get()));
  }
  // Custom keys with a value (keys marked for deletion are left out).
  std::map<std::string, std::string> custom_metadata() const {
    std::map<std::string, std::string> entries;
    for (size_t i = 0, n = fbs_metadata_custom_count(m_); i < n; i++) {
      const char* key = fbs_metadata_custom_key_at(m_, i);
      if (const char* value = key ? fbs_metadata_custom(m_, key) : nullptr) entries.emplace(key, value);
    }
    return entries;
  }
  const fbs_metadata* c_handle() const noexcept { return m_; }

 protected:
  const fbs_metadata* m_;

 private:
  static std::optional<int64_t> count(int64_t v) { return v < 0 ? std::nullopt : std::optional<int64_t>(v); }
  static std::optional<int64_t> time(int64_t v) { return v == FBS_TIME_ABSENT ? std::nullopt : std::optional<int64_t>(v); }
};

// Owned metadata: new (for uploads and updates) or returned by the server. A setter's nullopt
// marks the field for deletion on update; a field never set is not sent. Threads: reads may run
// concurrently; a setter must not run while another thread reads the same field (the C API
// lends field strings until the field changes).
class Metadata : public detail::OwningView<MetadataView, fbs_metadata, fbs_metadata_free> {
 public:
  Metadata() : OwningView(create()) {}
  // Takes ownership of a handle the library returned.
  static Metadata adopt_handle(fbs_metadata* m) { return Metadata(m); }

  Metadata& set_cache_control(std::optional<std::string_view> v) { return set(fbs_metadata_set_cache_control, v); }
  Metadata& set_content_disposition(std::optional<std::string_view> v) { return set(fbs_metadata_set_content_disposition, v); }
  Metadata& set_content_encoding(std::optional<std::string_view> v) { return set(fbs_metadata_set_content_encoding, v); }
  Metadata& set_content_language(std::optional<std::string_view> v) { return set(fbs_metadata_set_content_language, v); }
  Metadata& set_content_type(std::optional<std::string_view> v) { return set(fbs_metadata_set_content_type, v); }
  // nullopt marks the key for deletion on update.
  Metadata& set_custom(std::string_view key, std::optional<std::string_view> value) {
    detail::check(fbs_metadata_set_custom(handle(), detail::CString(key).get(), detail::OptionalCString(value).get()));
    return *this;
  }
  Metadata& remove_custom(std::string_view key) {
    detail::check(fbs_metadata_remove_custom(handle(), detail::CString(key).get()));
    return *this;
  }
  // Deletes every custom key on update.
  Metadata& clear_custom() {
    detail::check(fbs_metadata_clear_custom(handle()));
    return *this;
  }
  fbs_metadata* handle() const { return detail::require(owned_handle()); }

 private:
  explicit Metadata(fbs_metadata* m) noexcept : OwningView(m) {}
  static fbs_metadata* create() {
    fbs_metadata* m = nullptr;
    detail::check(fbs_metadata_new(&m));
    return m;
  }
  Metadata& set(int (*setter)(fbs_metadata*, const char*), std::optional<std::string_view> v) {
    detail::check(setter(handle(), detail::OptionalCString(v).get()));
    return *this;
  }
};

// ---------------------------------------------------------------------------------------------
// Tasks and snapshots
// ---------------------------------------------------------------------------------------------

enum class TaskStatus {
  kResume = FBS_TASK_STATUS_RESUME,
  kProgress = FBS_TASK_STATUS_PROGRESS,
  kPause = FBS_TASK_STATUS_PAUSE,
  kSuccess = FBS_TASK_STATUS_SUCCESS,
  kFailure = FBS_TASK_STATUS_FAILURE,
};

class Reference;

// A task's state at one event, borrowed (an observer's argument); see Snapshot for a copy.
class SnapshotView {
 public:
  explicit SnapshotView(const fbs_snapshot* s) noexcept : s_(s) {}
  TaskStatus status() const { return static_cast<TaskStatus>(fbs_snapshot_status(s_)); }
  int64_t bytes_transferred() const { return fbs_snapshot_bytes_transferred(s_); }
  // nullopt while unknown (a download before the response).
  std::optional<int64_t> total_bytes() const {
    int64_t total = fbs_snapshot_total_bytes(s_);
    return total < 0 ? std::nullopt : std::optional<int64_t>(total);
  }
  // The failure (status kFailure), else nullopt.
  std::optional<Error> error() const {
    int code = fbs_snapshot_error_code(s_);
    if (code == FBS_OK) return std::nullopt;
    return Error(code, detail::to_string(fbs_snapshot_error_message(s_)), fbs_snapshot_error_http_status(s_),
                 detail::to_string(fbs_snapshot_error_server_response(s_)));
  }
  // The object's metadata once known, borrowed from the snapshot.
  std::optional<MetadataView> metadata() const {
    const fbs_metadata* m = fbs_snapshot_metadata(s_);
    return m ? std::optional<MetadataView>(MetadataView(m)) : std::nullopt;
  }
  // The task's reference (a new handle).
  inline Reference reference() const;
  const fbs_snapshot* c_handle() const noexcept { return s_; }

 protected:
  const fbs_snapshot* s_;
};

// An owned copy of a task's latest snapshot (Task::snapshot()). Immutable: thread-safe.
class Snapshot : public detail::OwningView<SnapshotView, fbs_snapshot, fbs_snapshot_free> {
 public:
  using OwningView::OwningView;
};

// An upload or a file download. The task runs whether or not this object lives; its observers
// are this object's: destroying it removes them (waiting for a running one, unless destroyed
// on a callback thread) and then releases the handle. Observers run on the storage's callback
// thread. Thread-safe (observe/remove from any thread), except moving and destroying.
class Task {
 public:
  using Observer = std::function<void(const SnapshotView&)>;
  using ObserverId = fbs_observer_handle;

  explicit Task(fbs_task* t) : state_(std::make_unique<State>()) { state_->task.reset(t); }
  Task(Task&&) noexcept = default;
  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      release();
      state_ = std::move(other.state_);
    }
    return *this;
  }
  ~Task() { release(); }

  // Calls observer on every event of this status (see fbs_task_observe for late observers).
  ObserverId observe(TaskStatus status, Observer observer) {
    State& state = this->state();
    auto fn = std::make_shared<Observer>(std::move(observer));
    std::lock_guard<std::mutex> lock(state.mutex);
    ObserverId id = 0;
    detail::check(fbs_task_observe(state.task.get(), static_cast<fbs_task_status>(status), &Task::trampoline,
                                   fn.get(), &id));
    state.observers.emplace(id, std::move(fn));
    return id;
  }
  void remove_observer(ObserverId id) {
    State& state = this->state();
    detail::check(fbs_task_remove_observer(state.task.get(), id));
    std::lock_guard<std::mutex> lock(state.mutex);
    auto found = state.observers.find(id);
    if (found == state.observers.end()) return;
    detail::retire(std::move(found->second));
    state.observers.erase(found);
  }
  void remove_all_observers() {
    State& state = this->state();
    detail::check(fbs_task_remove_all_observers(state.task.get()));
    std::lock_guard<std::mutex> lock(state.mutex);
    for (auto& entry : state.observers) detail::retire(std::move(entry.second));
    state.observers.clear();
  }

  void pause() { detail::check(fbs_task_pause(handle())); }
  void resume() { detail::check(fbs_task_resume(handle())); }
  void cancel() { detail::check(fbs_task_cancel(handle())); }
  // Waits for the end; throws the failure. Returns false when the timeout (ms, negative: none)
  // passed first.
  bool wait(int64_t timeout_ms = -1) {
    int rc = fbs_task_wait(handle(), timeout_ms);
    if (rc == FBS_ERR_TIMEOUT) return false;
    detail::check(rc);
    return true;
  }
  Snapshot snapshot() const {
    fbs_snapshot* s = nullptr;
    detail::check(fbs_task_snapshot(handle(), &s));
    return Snapshot(s);
  }
  // The resumable-upload session to persist, nullopt while there is none
  // (Reference::put_file_resuming continues it, possibly in another process).
  std::optional<std::string> upload_session() const {
    char* session = nullptr;
    detail::check(fbs_task_upload_session(handle(), &session));
    if (!session) return std::nullopt;
    return detail::take_string(session);
  }
  fbs_task* handle() const { return detail::require(state_ ? state_->task.get() : nullptr); }

 private:
  struct State {
    std::mutex mutex;
    detail::Owned<fbs_task, fbs_task_free> task;
    std::map<ObserverId, std::shared_ptr<Observer>> observers;
  };
  static void trampoline(const fbs_snapshot* s, void* user_data) noexcept {
    detail::run_registered<Observer>(user_data, SnapshotView(s));
  }
  State& state() const {
    if (!state_) throw Error(FBS_ERR_INVALID_ARGUMENT, "the object was moved from");
    return *state_;
  }
  void release() noexcept {
    if (!state_) return;
    fbs_task_remove_all_observers(state_->task.get());
    for (auto& entry : state_->observers) detail::retire(std::move(entry.second));
    state_.reset();
  }
  std::unique_ptr<State> state_;
};

// ---------------------------------------------------------------------------------------------
// References and list results
// ---------------------------------------------------------------------------------------------

class ListResult;
class ListResultView;

// A bucket and an object path. Immutable: thread-safe.
class Reference {
 public:
  // Takes ownership of a handle the library returned.
  explicit Reference(fbs_reference* r) noexcept : r_(r) {}
  // A new handle for a borrowed one (a list item, a snapshot's reference).
  static Reference copy_of(const fbs_reference* r) {
    fbs_reference* out = nullptr;
    detail::check(fbs_reference_child(r, "", &out));
    return Reference(out);
  }
  Reference copy() const { return copy_of(handle()); }

  Reference child(std::string_view path) const {
    fbs_reference* out = nullptr;
    detail::check(fbs_reference_child(handle(), detail::CString(path).get(), &out));
    return Reference(out);
  }
  // nullopt at the root.
  std::optional<Reference> parent() const {
    fbs_reference* out = nullptr;
    detail::check(fbs_reference_parent(handle(), &out));
    return out ? std::optional<Reference>(Reference(out)) : std::nullopt;
  }
  Reference root() const {
    fbs_reference* out = nullptr;
    detail::check(fbs_reference_root(handle(), &out));
    return Reference(out);
  }
  std::string name() const { return detail::to_string(fbs_reference_name(handle())); }
  std::string full_path() const { return detail::to_string(fbs_reference_full_path(handle())); }
  std::string bucket() const { return detail::to_string(fbs_reference_bucket(handle())); }

  // Uploads (the bytes are copied at the call) and file downloads, as tasks.
  Task put_data(const void* bytes, size_t length, const Metadata* metadata = nullptr) const {
    return start([&](fbs_task** t) { return fbs_reference_put_data(handle(), bytes, length, c(metadata), t); });
  }
  Task put_data(std::string_view bytes, const Metadata* metadata = nullptr) const {
    return put_data(bytes.data(), bytes.size(), metadata);
  }
  Task put_file(std::string_view local_path, const Metadata* metadata = nullptr) const {
    detail::CString path(local_path);
    return start([&](fbs_task** t) { return fbs_reference_put_file(handle(), path.get(), c(metadata), t); });
  }
  // Continues the upload of a session string from Task::upload_session().
  Task put_file_resuming(std::string_view local_path, std::string_view session,
                         const Metadata* metadata = nullptr) const {
    detail::CString path(local_path), s(session);
    return start([&](fbs_task** t) {
      return fbs_reference_put_file_resuming(handle(), path.get(), s.get(), c(metadata), t);
    });
  }
  Task write_to_file(std::string_view local_path) const {
    detail::CString path(local_path);
    return start([&](fbs_task** t) { return fbs_reference_write_to_file(handle(), path.get(), t); });
  }

  // Blocking operations (retrying until the operation deadline).
  Metadata metadata() const {
    fbs_metadata* out = nullptr;
    detail::check(fbs_reference_get_metadata(handle(), &out));
    return Metadata::adopt_handle(out);
  }
  Metadata update_metadata(const Metadata& changes) const {
    fbs_metadata* out = nullptr;
    detail::check(fbs_reference_update_metadata(handle(), changes.handle(), &out));
    return Metadata::adopt_handle(out);
  }
  void delete_object() const { detail::check(fbs_reference_delete(handle())); }
  std::string download_url() const {
    char* url = nullptr;
    detail::check(fbs_reference_download_url(handle(), &url));
    return detail::take_string(url);
  }
  // The object's bytes; FBS_ERR_DOWNLOAD_SIZE_EXCEEDED when larger than max_size (negative: no limit).
  std::string get_data(int64_t max_size = -1) const {
    void* bytes = nullptr;
    size_t length = 0;
    detail::check(fbs_reference_get_data(handle(), max_size < 0 ? INT64_MAX : max_size, &bytes, &length));
    std::unique_ptr<void, void (*)(void*)> owned(bytes, fbs_data_free);
    return std::string(static_cast<const char*>(bytes), length);
  }
  // One page (max_results 1..1000, 0: the server's choice), or every page.
  inline ListResult list(int64_t max_results = 0, std::optional<std::string_view> page_token = std::nullopt) const;
  inline ListResult list_all() const;

  // The same operations without blocking: the completion runs once on the storage's callback
  // thread (with FBS_ERR_CANCELLED if the storage is freed first). Throws when the operation
  // could not start (then the completion never runs). Views passed to a completion are
  // borrowed for its duration (the C API lends them; it has no copy for metadata or listings).
  void metadata_async(detail::Completion<MetadataView> done) const {
    detail::start_async(std::move(done), [&](void* ud) {
      return fbs_reference_get_metadata_async(handle(), &Reference::on_metadata, ud);
    });
  }
  void update_metadata_async(const Metadata& changes, detail::Completion<MetadataView> done) const {
    detail::start_async(std::move(done), [&](void* ud) {
      return fbs_reference_update_metadata_async(handle(), changes.handle(), &Reference::on_metadata, ud);
    });
  }
  void delete_object_async(detail::Completion<void> done) const {
    detail::start_async(std::move(done), [&](void* ud) {
      return fbs_reference_delete_async(handle(), &Reference::on_done, ud);
    });
  }
  void download_url_async(detail::Completion<std::string> done) const {
    detail::start_async(std::move(done), [&](void* ud) {
      return fbs_reference_download_url_async(handle(), &Reference::on_string, ud);
    });
  }
  void get_data_async(int64_t max_size, detail::Completion<std::string> done) const {
    detail::start_async(std::move(done), [&](void* ud) {
      return fbs_reference_get_data_async(handle(), max_size < 0 ? INT64_MAX : max_size, &Reference::on_data, ud);
    });
  }
  inline void list_async(int64_t max_results, std::optional<std::string_view> page_token,
                         detail::Completion<ListResultView> done) const;
  inline void list_all_async(detail::Completion<ListResultView> done) const;

  fbs_reference* handle() const { return detail::require(r_.get()); }

 private:
  static const fbs_metadata* c(const Metadata* m) { return m ? m->handle() : nullptr; }
  template <class Start>
  static Task start(Start start) {
    fbs_task* t = nullptr;
    detail::check(start(&t));
    return Task(t);
  }
  static void on_metadata(int status, const fbs_metadata* m, void* ud) noexcept {
    if (status != FBS_OK) return detail::complete<MetadataView>(ud, detail::last_error(status));
    detail::complete<MetadataView>(ud, MetadataView(m));
  }
  static void on_done(int status, void* ud) noexcept {
    detail::complete<void>(ud, status == FBS_OK ? Result<void>() : Result<void>(detail::last_error(status)));
  }
  static void on_string(int status, const char* value, void* ud) noexcept {
    if (status != FBS_OK) return detail::complete<std::string>(ud, detail::last_error(status));
    detail::complete<std::string>(ud, detail::to_string(value));
  }
  static void on_data(int status, const void* bytes, size_t length, void* ud) noexcept {
    if (status != FBS_OK) return detail::complete<std::string>(ud, detail::last_error(status));
    detail::complete<std::string>(ud, std::string(static_cast<const char*>(bytes), length));
  }
  static inline void on_list(int status, const fbs_list_result* lr, void* ud) noexcept;

  detail::Owned<fbs_reference, fbs_reference_free> r_;
};

inline Reference SnapshotView::reference() const { return Reference::copy_of(fbs_snapshot_reference(s_)); }

// One page of a listing, or all of them (list_all: no page token), borrowed (a completion's
// argument); see ListResult for the owner.
class ListResultView {
 public:
  explicit ListResultView(const fbs_list_result* lr) noexcept : lr_(lr) {}
  std::vector<Reference> items() const { return collect(fbs_list_result_item_count(lr_), fbs_list_result_item); }
  std::vector<Reference> prefixes() const { return collect(fbs_list_result_prefix_count(lr_), fbs_list_result_prefix); }
  // The next page's token; nullopt on the last page.
  std::optional<std::string> page_token() const { return detail::to_optional(fbs_list_result_page_token(lr_)); }
  const fbs_list_result* c_handle() const noexcept { return lr_; }

 protected:
  const fbs_list_result* lr_;

 private:
  std::vector<Reference> collect(size_t count, const fbs_reference* (*at)(const fbs_list_result*, size_t)) const {
    std::vector<Reference> refs;
    refs.reserve(count);
    for (size_t i = 0; i < count; i++) refs.push_back(Reference::copy_of(at(lr_, i)));
    return refs;
  }
};

// An owned page (Reference::list, list_all). Immutable: thread-safe.
class ListResult : public detail::OwningView<ListResultView, fbs_list_result, fbs_list_result_free> {
 public:
  using OwningView::OwningView;
};

inline ListResult Reference::list(int64_t max_results, std::optional<std::string_view> page_token) const {
  fbs_list_result* out = nullptr;
  detail::OptionalCString token(page_token);
  detail::check(fbs_reference_list(handle(), max_results, token.get(), &out));
  return ListResult(out);
}
inline ListResult Reference::list_all() const {
  fbs_list_result* out = nullptr;
  detail::check(fbs_reference_list_all(handle(), &out));
  return ListResult(out);
}
inline void Reference::list_async(int64_t max_results, std::optional<std::string_view> page_token,
                                  detail::Completion<ListResultView> done) const {
  detail::OptionalCString token(page_token);
  detail::start_async(std::move(done), [&](void* ud) {
    return fbs_reference_list_async(handle(), max_results, token.get(), &Reference::on_list, ud);
  });
}
inline void Reference::list_all_async(detail::Completion<ListResultView> done) const {
  detail::start_async(std::move(done), [&](void* ud) {
    return fbs_reference_list_all_async(handle(), &Reference::on_list, ud);
  });
}

inline void Reference::on_list(int status, const fbs_list_result* lr, void* ud) noexcept {
  if (status != FBS_OK) return detail::complete<ListResultView>(ud, detail::last_error(status));
  detail::complete<ListResultView>(ud, ListResultView(lr));
}

// ---------------------------------------------------------------------------------------------
// Auth and users (fbstorage/auth.h)
// ---------------------------------------------------------------------------------------------

// A signed-in user at one moment, borrowed (a listener's or completion's argument); see User.
class UserView {
 public:
  explicit UserView(const fbs_user* u) noexcept : u_(u) {}
  std::string uid() const { return detail::to_string(fbs_user_uid(u_)); }
  std::optional<std::string> email() const { return detail::to_optional(fbs_user_email(u_)); }
  std::optional<std::string> display_name() const { return detail::to_optional(fbs_user_display_name(u_)); }
  std::optional<std::string> photo_url() const { return detail::to_optional(fbs_user_photo_url(u_)); }
  bool is_anonymous() const { return fbs_user_is_anonymous(u_) == 1; }
  // As of the ID token, or the last reload or account change.
  bool is_email_verified() const { return fbs_user_is_email_verified(u_) == 1; }
  // "anonymous", "password", "custom", ...
  std::string sign_in_provider() const { return detail::to_string(fbs_user_sign_in_provider(u_)); }
  // What the sign-in that answered this user said beyond it (fbs_user_is_new_user): nullopt
  // for any other user.
  std::optional<bool> is_new_user() const {
    int answer = fbs_user_is_new_user(u_);
    return answer < 0 ? std::nullopt : std::optional<bool>(answer == 1);
  }
  std::optional<std::string> additional_provider_id() const { return detail::to_optional(fbs_user_additional_provider_id(u_)); }
  std::optional<std::string> additional_profile_json() const { return detail::to_optional(fbs_user_additional_profile_json(u_)); }
  std::optional<std::string> additional_username() const { return detail::to_optional(fbs_user_additional_username(u_)); }
  // Credentials: never log them.
  std::string id_token() const { return detail::to_string(fbs_user_id_token(u_)); }
  std::string refresh_token() const { return detail::to_string(fbs_user_refresh_token(u_)); }
  // The ID token's claims as a JSON object.
  std::string claims_json() const { return detail::to_string(fbs_user_claims_json(u_)); }
  // Milliseconds since the Unix epoch; nullopt when absent.
  std::optional<int64_t> token_expiration_ms() const { return time(fbs_user_token_expiration(u_)); }
  std::optional<int64_t> token_issued_at_ms() const { return time(fbs_user_token_issued_at(u_)); }
  std::optional<int64_t> auth_time_ms() const { return time(fbs_user_auth_time(u_)); }
  // The account's sign-in methods and dates, as of the last reload or account change (a
  // sign-in alone does not read them: no providers and nullopt until then).
  struct ProviderInfo {
    std::string provider_id;  // "password", "google.com", ...
    std::string uid;          // the user's id at the provider (the email for "password")
    std::optional<std::string> email, display_name, photo_url, phone_number;
  };
  std::vector<ProviderInfo> providers() const {
    std::vector<ProviderInfo> providers(fbs_user_provider_count(u_));
    for (size_t i = 0; i < providers.size(); i++) {
      providers[i] = {detail::to_string(fbs_user_provider_id(u_, i)), detail::to_string(fbs_user_provider_uid(u_, i)),
                      detail::to_optional(fbs_user_provider_email(u_, i)),
                      detail::to_optional(fbs_user_provider_display_name(u_, i)),
                      detail::to_optional(fbs_user_provider_photo_url(u_, i)),
                      detail::to_optional(fbs_user_provider_phone_number(u_, i))};
    }
    return providers;
  }
  std::optional<int64_t> creation_time_ms() const { return time(fbs_user_creation_time(u_)); }
  std::optional<int64_t> last_sign_in_time_ms() const { return time(fbs_user_last_sign_in_time(u_)); }
  const fbs_user* c_handle() const noexcept { return u_; }

 protected:
  const fbs_user* u_;

 private:
  static std::optional<int64_t> time(int64_t v) { return v == FBS_TIME_ABSENT ? std::nullopt : std::optional<int64_t>(v); }
};

// An owned user snapshot (a sign-in's result, Auth::current_user()). Immutable: thread-safe.
class User : public detail::OwningView<UserView, fbs_user, fbs_user_free> {
 public:
  using OwningView::OwningView;
};

// What a user proves who they are with (the SDKs' AuthCredential): immutable, shareable.
// Secrets stay inside the C handle: never in messages or logs.
class Credential {
 public:
  // An email and password (EmailAuthProvider).
  static Credential email(std::string_view email, std::string_view password) {
    detail::CString e(email), p(password);
    return make([&](fbs_credential** out) { return fbs_credential_email(e.get(), p.get(), out); });
  }
  // An identity provider's ID token and/or access token ("google.com", "github.com", ...).
  static Credential idp(std::string_view provider_id, std::optional<std::string_view> id_token,
                        std::optional<std::string_view> access_token) {
    detail::CString provider(provider_id);
    detail::OptionalCString id(id_token), access(access_token);
    return make([&](fbs_credential** out) { return fbs_credential_idp(provider.get(), id.get(), access.get(), out); });
  }
  // As idp, with the raw nonce of the ID token (Sign in with Apple) and an OAuth 1.0 token
  // secret for the access token (Twitter); fbs_credential_oauth.
  static Credential oauth(std::string_view provider_id, std::optional<std::string_view> id_token,
                          std::optional<std::string_view> raw_nonce, std::optional<std::string_view> access_token,
                          std::optional<std::string_view> secret) {
    detail::CString provider(provider_id);
    detail::OptionalCString id(id_token), nonce(raw_nonce), access(access_token), token_secret(secret);
    return make([&](fbs_credential** out) {
      return fbs_credential_oauth(provider.get(), id.get(), nonce.get(), access.get(), token_secret.get(), out);
    });
  }
  const fbs_credential* handle() const { return detail::require(c_.get()); }

 private:
  explicit Credential(fbs_credential* c) noexcept : c_(c) {}
  template <class Make>
  static Credential make(Make call) {
    fbs_credential* c = nullptr;
    detail::check(call(&c));
    return Credential(c);
  }
  detail::Owned<fbs_credential, fbs_credential_free> c_;
};

// Firebase Auth for one app (Web API key, project id). Sign-in calls block; the *_async forms
// complete on the auth's callback thread with a UserView borrowed for the call. Listeners are
// this object's: destroying it removes them, then releases the handle (storages using it keep
// the auth itself alive). Thread-safe, except moving and destroying.
class Auth {
 public:
  using Listener = std::function<void(const UserView* user)>;  // nullptr: signed out
  using ListenerId = fbs_listener_handle;

  explicit Auth(std::string_view api_key, std::optional<std::string_view> project_id = std::nullopt)
      : state_(std::make_unique<State>()) {
    fbs_auth* a = nullptr;
    detail::check(fbs_auth_new(detail::CString(api_key).get(), detail::OptionalCString(project_id).get(), &a));
    state_->auth.reset(a);
  }
  Auth(Auth&&) noexcept = default;
  Auth& operator=(Auth&& other) noexcept {
    if (this != &other) {
      release();
      state_ = std::move(other.state_);
    }
    return *this;
  }
  ~Auth() { release(); }

  void use_emulator(std::string_view host, int port) {
    detail::check(fbs_auth_use_emulator(handle(), detail::CString(host).get(), port));
  }
  // Keeps the signed-in user in a file (nullopt: stop).
  void set_persistence_file(std::optional<std::string_view> path) {
    detail::check(fbs_auth_set_persistence_file(handle(), detail::OptionalCString(path).get()));
  }
  // Keeps the signed-in user in the program's configuration folder, a file per app and API key.
  void set_persistence_for_app(std::string_view program, std::string_view app_name) {
    detail::check(fbs_auth_set_persistence_for_app(handle(), detail::CString(program).get(), detail::CString(app_name).get()));
  }

  User sign_in_anonymously() {
    return sign_in([&](fbs_user** u) { return fbs_auth_sign_in_anonymously(handle(), u); });
  }
  User create_user(std::string_view email, std::string_view password) {
    detail::CString e(email), p(password);
    return sign_in([&](fbs_user** u) { return fbs_auth_create_user(handle(), e.get(), p.get(), u); });
  }
  User sign_in_with_email(std::string_view email, std::string_view password) {
    detail::CString e(email), p(password);
    return sign_in([&](fbs_user** u) { return fbs_auth_sign_in_with_email(handle(), e.get(), p.get(), u); });
  }
  User sign_in_with_custom_token(std::string_view token) {
    detail::CString t(token);
    return sign_in([&](fbs_user** u) { return fbs_auth_sign_in_with_custom_token(handle(), t.get(), u); });
  }
  User sign_in_with_refresh_token(std::string_view refresh_token) {
    detail::CString t(refresh_token);
    return sign_in([&](fbs_user** u) { return fbs_auth_sign_in_with_refresh_token(handle(), t.get(), u); });
  }

  void sign_in_anonymously_async(detail::Completion<UserView> done) {
    detail::start_async(std::move(done), [&](void* ud) {
      return fbs_auth_sign_in_anonymously_async(handle(), &Auth::on_user, ud);
    });
  }
  void create_user_async(std::string_view email, std::string_view password, detail::Completion<UserView> done) {
    detail::CString e(email), p(password);
    detail::start_async(std::move(done), [&](void* ud) {
      return fbs_auth_create_user_async(handle(), e.get(), p.get(), &Auth::on_user, ud);
    });
  }
  void sign_in_with_email_async(std::string_view email, std::string_view password, detail::Completion<UserView> done) {
    detail::CString e(email), p(password);
    detail::start_async(std::move(done), [&](void* ud) {
      return fbs_auth_sign_in_with_email_async(handle(), e.get(), p.get(), &Auth::on_user, ud);
    });
  }
  void sign_in_with_custom_token_async(std::string_view token, detail::Completion<UserView> done) {
    detail::CString t(token);
    detail::start_async(std::move(done), [&](void* ud) {
      return fbs_auth_sign_in_with_custom_token_async(handle(), t.get(), &Auth::on_user, ud);
    });
  }

  void sign_out() { detail::check(fbs_auth_sign_out(handle())); }
  void delete_user() { detail::check(fbs_auth_delete_user(handle())); }
  void delete_user_async(detail::Completion<void> done) {
    detail::start_async(std::move(done), [&](void* ud) {
      return fbs_auth_delete_user_async(handle(), &Auth::on_done, ud);
    });
  }
  // Display name and photo URL: nullopt leaves a field as it is, "" deletes it.
  User update_profile(std::optional<std::string_view> display_name, std::optional<std::string_view> photo_url) {
    detail::OptionalCString name(display_name), photo(photo_url);
    return sign_in([&](fbs_user** u) { return fbs_auth_update_profile(handle(), name.get(), photo.get(), u); });
  }
  void update_profile_async(std::optional<std::string_view> display_name, std::optional<std::string_view> photo_url,
                            detail::Completion<UserView> done) {
    detail::OptionalCString name(display_name), photo(photo_url);
    detail::start_async(std::move(done), [&](void* ud) {
      return fbs_auth_update_profile_async(handle(), name.get(), photo.get(), &Auth::on_user, ud);
    });
  }
  // The account lifecycle (fbstorage/auth.h): each call on the current user answers it updated.
  User sign_in_with_credential(const Credential& credential) {
    return sign_in([&](fbs_user** u) { return fbs_auth_sign_in_with_credential(handle(), credential.handle(), u); });
  }
  User link_with_credential(const Credential& credential) {
    return sign_in([&](fbs_user** u) { return fbs_auth_link_with_credential(handle(), credential.handle(), u); });
  }
  User reauthenticate(const Credential& credential) {
    return sign_in([&](fbs_user** u) { return fbs_auth_reauthenticate(handle(), credential.handle(), u); });
  }
  User unlink(std::string_view provider_id) {
    detail::CString p(provider_id);
    return sign_in([&](fbs_user** u) { return fbs_auth_unlink(handle(), p.get(), u); });
  }
  User update_email(std::string_view email) {
    detail::CString e(email);
    return sign_in([&](fbs_user** u) { return fbs_auth_update_email(handle(), e.get(), u); });
  }
  User update_password(std::string_view password) {
    detail::CString p(password);
    return sign_in([&](fbs_user** u) { return fbs_auth_update_password(handle(), p.get(), u); });
  }
  User reload() {
    return sign_in([&](fbs_user** u) { return fbs_auth_reload(handle(), u); });
  }
  void send_email_verification() { detail::check(fbs_auth_send_email_verification(handle())); }
  void verify_before_update_email(std::string_view email) {
    detail::check(fbs_auth_verify_before_update_email(handle(), detail::CString(email).get()));
  }
  void send_password_reset_email(std::string_view email) {
    detail::check(fbs_auth_send_password_reset_email(handle(), detail::CString(email).get()));
  }
  // The email a password-reset code is for.
  std::string verify_password_reset_code(std::string_view code) {
    char* email = nullptr;
    detail::check(fbs_auth_verify_password_reset_code(handle(), detail::CString(code).get(), &email));
    return detail::take_string(email);
  }
  // How `email` can sign in: "password", "emailLink", provider ids; none with email enumeration
  // protection on (fbs_auth_fetch_sign_in_methods).
  std::vector<std::string> fetch_sign_in_methods(std::string_view email) {
    char* methods = nullptr;
    detail::check(fbs_auth_fetch_sign_in_methods(handle(), detail::CString(email).get(), &methods));
    return split_methods(detail::take_string(methods));
  }
  void confirm_password_reset(std::string_view code, std::string_view new_password) {
    detail::check(fbs_auth_confirm_password_reset(handle(), detail::CString(code).get(), detail::CString(new_password).get()));
  }
  void apply_action_code(std::string_view code) {
    detail::check(fbs_auth_apply_action_code(handle(), detail::CString(code).get()));
  }

  void sign_in_with_credential_async(const Credential& credential, detail::Completion<UserView> done) {
    detail::start_async(std::move(done), [&](void* ud) {
      return fbs_auth_sign_in_with_credential_async(handle(), credential.handle(), &Auth::on_user, ud);
    });
  }
  void link_with_credential_async(const Credential& credential, detail::Completion<UserView> done) {
    detail::start_async(std::move(done), [&](void* ud) {
      return fbs_auth_link_with_credential_async(handle(), credential.handle(), &Auth::on_user, ud);
    });
  }
  void reauthenticate_async(const Credential& credential, detail::Completion<UserView> done) {
    detail::start_async(std::move(done), [&](void* ud) {
      return fbs_auth_reauthenticate_async(handle(), credential.handle(), &Auth::on_user, ud);
    });
  }
  void unlink_async(std::string_view provider_id, detail::Completion<UserView> done) {
    detail::CString p(provider_id);
    detail::start_async(std::move(done), [&](void* ud) { return fbs_auth_unlink_async(handle(), p.get(), &Auth::on_user, ud); });
  }
  void update_email_async(std::string_view email, detail::Completion<UserView> done) {
    detail::CString e(email);
    detail::start_async(std::move(done), [&](void* ud) { return fbs_auth_update_email_async(handle(), e.get(), &Auth::on_user, ud); });
  }
  void update_password_async(std::string_view password, detail::Completion<UserView> done) {
    detail::CString p(password);
    detail::start_async(std::move(done),
               [&](void* ud) { return fbs_auth_update_password_async(handle(), p.get(), &Auth::on_user, ud); });
  }
  void reload_async(detail::Completion<UserView> done) {
    detail::start_async(std::move(done), [&](void* ud) { return fbs_auth_reload_async(handle(), &Auth::on_user, ud); });
  }
  void send_email_verification_async(detail::Completion<void> done) {
    detail::start_async(std::move(done),
                        [&](void* ud) { return fbs_auth_send_email_verification_async(handle(), &Auth::on_done, ud); });
  }
  void verify_before_update_email_async(std::string_view email, detail::Completion<void> done) {
    detail::CString e(email);
    detail::start_async(std::move(done), [&](void* ud) {
      return fbs_auth_verify_before_update_email_async(handle(), e.get(), &Auth::on_done, ud);
    });
  }
  void send_password_reset_email_async(std::string_view email, detail::Completion<void> done) {
    detail::CString e(email);
    detail::start_async(std::move(done), [&](void* ud) {
      return fbs_auth_send_password_reset_email_async(handle(), e.get(), &Auth::on_done, ud);
    });
  }
  void verify_password_reset_code_async(std::string_view code, detail::Completion<std::string> done) {
    detail::CString c(code);
    detail::start_async(std::move(done), [&](void* ud) {
      return fbs_auth_verify_password_reset_code_async(handle(), c.get(), &Auth::on_string, ud);
    });
  }
  void fetch_sign_in_methods_async(std::string_view email, detail::Completion<std::vector<std::string>> done) {
    detail::CString e(email);
    detail::start_async(detail::Completion<std::string>([done = std::move(done)](Result<std::string> joined) {
                          if (const Error* error = joined.error()) return done(*error);
                          done(split_methods(std::move(joined).value()));
                        }),
                        [&](void* ud) { return fbs_auth_fetch_sign_in_methods_async(handle(), e.get(), &Auth::on_string, ud); });
  }
  void confirm_password_reset_async(std::string_view code, std::string_view new_password, detail::Completion<void> done) {
    detail::CString c(code), p(new_password);
    detail::start_async(std::move(done), [&](void* ud) {
      return fbs_auth_confirm_password_reset_async(handle(), c.get(), p.get(), &Auth::on_done, ud);
    });
  }
  void apply_action_code_async(std::string_view code, detail::Completion<void> done) {
    detail::CString c(code);
    detail::start_async(std::move(done),
                        [&](void* ud) { return fbs_auth_apply_action_code_async(handle(), c.get(), &Auth::on_done, ud); });
  }

  // nullopt when signed out.
  std::optional<User> current_user() const {
    fbs_user* u = nullptr;
    detail::check(fbs_auth_current_user(handle(), &u));
    return u ? std::optional<User>(User(u)) : std::nullopt;
  }
  std::string id_token(bool force_refresh = false) {
    char* token = nullptr;
    detail::check(fbs_auth_get_id_token(handle(), force_refresh ? 1 : 0, &token));
    return detail::take_string(token);
  }
  void id_token_async(bool force_refresh, detail::Completion<std::string> done) {
    detail::start_async(std::move(done), [&](void* ud) {
      return fbs_auth_get_id_token_async(handle(), force_refresh ? 1 : 0, &Auth::on_string, ud);
    });
  }

  // Listeners run once at registration, then on every change (state) or new token (ID token).
  ListenerId add_state_listener(Listener listener) { return add(fbs_auth_add_state_listener, std::move(listener)); }
  ListenerId add_id_token_listener(Listener listener) { return add(fbs_auth_add_id_token_listener, std::move(listener)); }
  // After it returns (off the callback thread) the listener does not run again.
  void remove_listener(ListenerId id) {
    detail::check(fbs_auth_remove_listener(handle(), id));
    std::lock_guard<std::mutex> lock(state_->mutex);
    auto found = state_->listeners.find(id);
    if (found == state_->listeners.end()) return;
    detail::retire(std::move(found->second));
    state_->listeners.erase(found);
  }

  fbs_auth* handle() const { return detail::require(state_ ? state_->auth.get() : nullptr); }

 private:
  struct State {
    std::mutex mutex;
    detail::Owned<fbs_auth, fbs_auth_free> auth;
    std::map<ListenerId, std::shared_ptr<Listener>> listeners;
  };
  template <class Call>
  User sign_in(Call call) {
    fbs_user* u = nullptr;
    detail::check(call(&u));
    return User(u);
  }
  ListenerId add(int (*register_fn)(fbs_auth*, fbs_auth_listener, void*, fbs_listener_handle*), Listener listener) {
    auto fn = std::make_shared<Listener>(std::move(listener));
    std::lock_guard<std::mutex> lock(state_->mutex);
    ListenerId id = 0;
    detail::check(register_fn(handle(), &Auth::on_listener, fn.get(), &id));
    state_->listeners.emplace(id, std::move(fn));
    return id;
  }
  static void on_listener(const fbs_user* user, void* ud) noexcept {
    UserView view(user);
    detail::run_registered<Listener>(ud, user ? &view : nullptr);
  }
  static void on_user(int status, const fbs_user* user, void* ud) noexcept {
    if (status != FBS_OK) return detail::complete<UserView>(ud, detail::last_error(status));
    detail::complete<UserView>(ud, UserView(user));
  }
  static void on_done(int status, void* ud) noexcept {
    detail::complete<void>(ud, status == FBS_OK ? Result<void>() : Result<void>(detail::last_error(status)));
  }
  // fbs_auth_fetch_sign_in_methods' answer: the methods joined by ','.
  static std::vector<std::string> split_methods(const std::string& joined) {
    std::vector<std::string> methods;
    for (size_t start = 0; start < joined.size();) {
      size_t end = std::min(joined.find(',', start), joined.size());
      methods.push_back(joined.substr(start, end - start));
      start = end + 1;
    }
    return methods;
  }
  static void on_string(int status, const char* token, void* ud) noexcept {
    if (status != FBS_OK) return detail::complete<std::string>(ud, detail::last_error(status));
    detail::complete<std::string>(ud, detail::to_string(token));
  }
  void release() noexcept {
    if (!state_) return;
    for (auto& entry : state_->listeners) {
      fbs_auth_remove_listener(state_->auth.get(), entry.first);
      detail::retire(std::move(entry.second));
    }
    state_.reset();
  }
  std::unique_ptr<State> state_;
};

// ---------------------------------------------------------------------------------------------
// Storage
// ---------------------------------------------------------------------------------------------

// One bucket with its settings and its transfer and callback threads. Destroying it cancels
// its running tasks and waits for their callbacks (see fbs_storage_free). Thread-safe.
class Storage {
 public:
  // "my-app.appspot.com" or "gs://my-app.appspot.com".
  explicit Storage(std::string_view bucket) {
    fbs_storage* s = nullptr;
    detail::check(fbs_storage_new(detail::CString(bucket).get(), &s));
    s_.reset(s);
  }
  std::string bucket() const { return detail::to_string(fbs_storage_bucket(handle())); }
  void use_emulator(std::string_view host, int port) {
    detail::check(fbs_storage_use_emulator(handle(), detail::CString(host).get(), port));
  }
  // Every request carries auth's current user from now on; nullptr detaches.
  void use_auth(const Auth* auth) { detail::check(fbs_storage_use_auth(handle(), auth ? auth->handle() : nullptr)); }
  void set_auth_token(std::optional<std::string_view> token) {
    detail::check(fbs_storage_set_auth_token(handle(), detail::OptionalCString(token).get()));
  }
  void set_app_check_token(std::optional<std::string_view> token) {
    detail::check(fbs_storage_set_app_check_token(handle(), detail::OptionalCString(token).get()));
  }
  void set_max_upload_retry_time(double seconds) { detail::check(fbs_storage_set_max_upload_retry_time(handle(), seconds)); }
  void set_max_download_retry_time(double seconds) { detail::check(fbs_storage_set_max_download_retry_time(handle(), seconds)); }
  void set_max_operation_retry_time(double seconds) { detail::check(fbs_storage_set_max_operation_retry_time(handle(), seconds)); }
  double max_upload_retry_time() const { return get(fbs_storage_get_max_upload_retry_time); }
  double max_download_retry_time() const { return get(fbs_storage_get_max_download_retry_time); }
  double max_operation_retry_time() const { return get(fbs_storage_get_max_operation_retry_time); }
  void set_upload_chunk_size(int64_t bytes) { detail::check(fbs_storage_set_upload_chunk_size(handle(), bytes)); }
  int64_t upload_chunk_size() const {
    int64_t bytes = 0;
    detail::check(fbs_storage_get_upload_chunk_size(handle(), &bytes));
    return bytes;
  }
  void set_connect_timeout(double seconds) { detail::check(fbs_storage_set_connect_timeout(handle(), seconds)); }
  void set_verify_md5(bool enabled) { detail::check(fbs_storage_set_verify_md5(handle(), enabled ? 1 : 0)); }
  void set_ca_file(std::optional<std::string_view> pem_path) {
    detail::check(fbs_storage_set_ca_file(handle(), detail::OptionalCString(pem_path).get()));
  }

  // "" is the root.
  Reference reference(std::string_view path = {}) const {
    fbs_reference* out = nullptr;
    detail::check(fbs_storage_reference(handle(), detail::CString(path).get(), &out));
    return Reference(out);
  }
  // "gs://bucket/path" or an http(s) download URL of this bucket.
  Reference reference_for_url(std::string_view url) const {
    fbs_reference* out = nullptr;
    detail::check(fbs_storage_reference_for_url(handle(), detail::CString(url).get(), &out));
    return Reference(out);
  }
  fbs_storage* handle() const { return detail::require(s_.get()); }

 private:
  double get(int (*getter)(const fbs_storage*, double*)) const {
    double seconds = 0;
    detail::check(getter(handle(), &seconds));
    return seconds;
  }
  detail::Owned<fbs_storage, fbs_storage_free> s_;
};

}  // namespace fbstorage

#endif  // FBSTORAGE_HPP
