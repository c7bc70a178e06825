// test_storage.cc — firebase::storage over the bundled emulator, both flavors: every method
// of Storage, StorageReference, Metadata, Listener, Controller and StorageListResult.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include "fixtures.h"
#include "firebase/storage.h"
#include "firebase/storage/list_result.h"

using firebase::Future;
using firebase::storage::Controller;
using firebase::storage::Listener;
using firebase::storage::Metadata;
using firebase::storage::StorageListResult;
using firebase::storage::StorageReference;

namespace {

std::string ReadLocal(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// Records events; optionally pauses at the first progress event.
class RecordingListener : public Listener {
 public:
  explicit RecordingListener(bool pause_on_first_progress = false) : pause_(pause_on_first_progress) {}
  void OnProgress(Controller* controller) override {
    int64_t bytes = controller->bytes_transferred();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      progress_bytes.push_back(bytes);
      total = controller->total_byte_count();
      reference_path = controller->GetReference().full_path();
    }
    if (pause_ && !paused_once_.exchange(true)) pause_accepted = controller->Pause();
  }
  void OnPaused(Controller* controller) override {
    paused_state = controller->is_paused();
    paused.Raise();
  }
  std::vector<int64_t> Progress() {
    std::lock_guard<std::mutex> lock(mutex_);
    return progress_bytes;
  }

  std::mutex mutex_;
  std::vector<int64_t> progress_bytes;
  int64_t total = 0;
  std::string reference_path;
  std::atomic<bool> pause_accepted{false}, paused_state{false};
  Signal paused;

 private:
  bool pause_;
  std::atomic<bool> paused_once_{false};
};

}  // namespace

class StorageTest : public FlavorTest {};
INSTANTIATE_TEST_SUITE_P(Flavors, StorageTest, FBS_BOTH_FLAVORS);

TEST_P(StorageTest, GetInstanceIsOnePerAppAndUrl) {
  EXPECT_EQ(firebase::storage::Storage::GetInstance(app), storage);
  EXPECT_EQ(storage->app(), app);
  EXPECT_EQ(storage->url(), "");
  auto* other = firebase::storage::Storage::GetInstance(app, "gs://other-bucket");
  ASSERT_NE(other, nullptr);
  EXPECT_NE(other, storage);
  EXPECT_EQ(other->url(), "gs://other-bucket");
  EXPECT_EQ(other->GetReference().bucket(), "other-bucket");
  EXPECT_EQ(firebase::storage::Storage::GetInstance(app, "gs://other-bucket"), other);
  delete other;  // deleting one is allowed; the App then forgets it
  EXPECT_EQ(firebase::storage::Storage::GetInstance(nullptr), nullptr);
  EXPECT_EQ(firebase::storage::Storage::GetInstance(app, "gs://bucket/with/path"), nullptr);
}

TEST_P(StorageTest, ReferencesNavigate) {
  StorageReference root = storage->GetReference();
  EXPECT_TRUE(root.is_valid());
  EXPECT_EQ(root.full_path(), "");
  EXPECT_EQ(root.bucket(), kBucket);
  EXPECT_FALSE(root.GetParent().is_valid());
  StorageReference photo = root.Child("images").Child(std::string("2024//cat.jpg/"));
  EXPECT_EQ(photo.full_path(), "images/2024/cat.jpg");
  EXPECT_EQ(photo.name(), "cat.jpg");
  EXPECT_EQ(photo.storage(), storage);
  EXPECT_EQ(photo.GetParent().full_path(), "images/2024");
  EXPECT_EQ(photo.GetParent().GetParent().GetParent().full_path(), "");
  EXPECT_EQ(storage->GetReference("images/2024/cat.jpg").full_path(), photo.full_path());
  StorageReference copy = photo;
  EXPECT_EQ(copy.name(), "cat.jpg");
  StorageReference moved = std::move(copy);
  EXPECT_TRUE(moved.is_valid());

  StorageReference from_gs = storage->GetReferenceFromUrl(std::string("gs://") + kBucket + "/a/b.txt");
  EXPECT_EQ(from_gs.full_path(), "a/b.txt");
  StorageReference from_http = storage->GetReferenceFromUrl(emulator().base_url() + "/v0/b/" + kBucket + "/o/a%2Fc.txt");
  EXPECT_EQ(from_http.full_path(), "a/c.txt");
  EXPECT_FALSE(storage->GetReferenceFromUrl("gs://another-bucket/x").is_valid());
  EXPECT_FALSE(storage->GetReference(std::string(2000, 'x')).is_valid());
  EXPECT_FALSE(StorageReference().Child("x").is_valid());
}

TEST_P(StorageTest, RetryTimesAreSetAndRead) {
  EXPECT_EQ(storage->max_upload_retry_time(), 600);
  EXPECT_EQ(storage->max_download_retry_time(), 600);
  EXPECT_EQ(storage->max_operation_retry_time(), 120);
  storage->set_max_upload_retry_time(30);
  storage->set_max_download_retry_time(40);
  storage->set_max_operation_retry_time(5);
  EXPECT_EQ(storage->max_upload_retry_time(), 30);
  EXPECT_EQ(storage->max_download_retry_time(), 40);
  EXPECT_EQ(storage->max_operation_retry_time(), 5);
  storage->set_max_operation_retry_time(-1);  // refused on stderr: the old value stays
  EXPECT_EQ(storage->max_operation_retry_time(), 5);
}

// The retry deadlines bound how long an operation retries (the SDK's set_max_*_retry_time):
// against a server answering 503 to everything, with deadlines of 1 s, each kind of operation
// ends with kErrorRetryLimitExceeded after retrying, in seconds (the defaults: 120 s, 600 s).
TEST_P(StorageTest, RetryTimesBoundOperationsAgainstAFailingServer) {
  StorageReference ref = storage->GetReference("retry/a.txt");
  Succeeded(ref.PutBytes("abc", 3));
  emulator().AddFault(R"({"match": {"path_prefix": "/v0/b/"}, "times": 100000, "action": {"status": 503}})");
  storage->set_max_operation_retry_time(1);
  storage->set_max_download_retry_time(1);
  storage->set_max_upload_retry_time(1);
  auto started = std::chrono::steady_clock::now();
  char buffer[16];
  std::vector<firebase::FutureBase> operations = {ref.GetMetadata(), ref.GetBytes(buffer, sizeof buffer),
                                                  ref.PutBytes("x", 1)};
  for (auto& operation : operations) {
    Completed(operation);
    EXPECT_EQ(operation.error(), firebase::storage::kErrorRetryLimitExceeded) << operation.error_message();
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("three operations against 503s with 1 s deadlines ended after %.2f s\n", seconds);
  EXPECT_GE(seconds, 0.9);  // retried until the deadline
  EXPECT_LT(seconds, 8.0);
  std::string log = emulator().RequestsJson();
  size_t refused = 0;
  for (size_t at = log.find("503"); at != std::string::npos; at = log.find("503", at + 1)) refused++;
  EXPECT_GT(refused, operations.size());  // retried, not failed at the first 503
}

TEST_P(StorageTest, PutBytesWithMetadataThenGetMetadataAndBytes) {
  std::string text = "hello from C++";
  Metadata metadata;
  metadata.set_content_type("text/plain");
  metadata.set_cache_control(std::string("max-age=60"));
  metadata.set_content_language("en");
  metadata.set_content_encoding("identity");
  (*metadata.custom_metadata())["owner"] = "cpp";
  StorageReference ref = storage->GetReference("docs/hello.txt");
  Future<Metadata> put = ref.PutBytes(text.data(), text.size(), metadata);
  EXPECT_EQ(ref.PutBytesLastResult(), put);
  const Metadata& stored = Succeeded(put);
  EXPECT_TRUE(stored.is_valid());
  EXPECT_EQ(stored.size_bytes(), static_cast<int64_t>(text.size()));
  EXPECT_STREQ(stored.content_type(), "text/plain");
  EXPECT_STREQ(stored.cache_control(), "max-age=60");
  EXPECT_STREQ(stored.content_language(), "en");
  EXPECT_STREQ(stored.content_encoding(), "identity");
  EXPECT_STREQ(stored.name(), "hello.txt");
  EXPECT_STREQ(stored.path(), "docs/hello.txt");
  EXPECT_STREQ(stored.bucket(), kBucket);
  EXPECT_EQ(stored.custom_metadata()->at("owner"), "cpp");
  EXPECT_GT(stored.generation(), 0);
  EXPECT_GT(stored.metadata_generation(), 0);
  EXPECT_GT(stored.creation_time(), 1600000000000);
  EXPECT_GE(stored.updated_time(), stored.creation_time());
  EXPECT_STRNE(stored.md5_hash(), "");
  EXPECT_EQ(stored.GetReference().full_path(), "docs/hello.txt");
  EXPECT_EQ(emulator().ObjectBytes(kBucket, "docs%2Fhello.txt"), text);

  const Metadata& read = Succeeded(ref.GetMetadata());
  EXPECT_EQ(ref.GetMetadataLastResult().result()->size_bytes(), read.size_bytes());
  EXPECT_STREQ(read.md5_hash(), stored.md5_hash());

  char buffer[64] = {};
  Future<size_t> got = ref.GetBytes(buffer, sizeof buffer);
  EXPECT_EQ(Succeeded(got), text.size());
  EXPECT_EQ(std::string(buffer, text.size()), text);
  EXPECT_EQ(ref.GetBytesLastResult(), got);

  char small[4];
  Future<size_t> too_big = ref.GetBytes(small, sizeof small);
  Completed(too_big);
  EXPECT_EQ(too_big.error(), firebase::storage::kErrorDownloadSizeExceeded);
  EXPECT_NE(too_big.error_message(), nullptr);
}

TEST_P(StorageTest, UpdateMetadataSetsDeletesAndMerges) {
  StorageReference ref = storage->GetReference("meta/object.bin");
  Metadata initial;
  initial.set_content_type("application/x-test");
  initial.set_content_disposition("inline");
  (*initial.custom_metadata())["keep"] = "1";
  (*initial.custom_metadata())["drop"] = "2";
  Metadata stored = Succeeded(ref.PutBytes("abc", 3, initial));

  EXPECT_STREQ(stored.content_disposition(), "inline");
  // Edit what the server returned: change one field, delete another, drop a custom key.
  stored.set_content_type("text/csv");
  stored.set_content_disposition(nullptr);
  stored.custom_metadata()->erase("drop");
  (*stored.custom_metadata())["added"] = "3";
  Future<Metadata> update = ref.UpdateMetadata(stored);
  const Metadata& updated = Succeeded(update);
  EXPECT_EQ(ref.UpdateMetadataLastResult(), update);
  EXPECT_STREQ(updated.content_type(), "text/csv");
  EXPECT_STREQ(updated.content_disposition(), "");  // deleted
  auto custom = *updated.custom_metadata();
  EXPECT_EQ(custom.count("drop"), 0u);
  EXPECT_EQ(custom["keep"], "1");
  EXPECT_EQ(custom["added"], "3");
  EXPECT_GT(updated.metadata_generation(), stored.metadata_generation());

  // Metadata is a value: copies are independent.
  Metadata copy = updated;
  copy.set_content_type("image/png");
  EXPECT_STREQ(updated.content_type(), "text/csv");
  EXPECT_STREQ(copy.content_type(), "image/png");
}

TEST_P(StorageTest, MissingObjectsFailWithObjectNotFound) {
  StorageReference ref = storage->GetReference("missing/none.txt");
  Future<Metadata> metadata = ref.GetMetadata();
  Completed(metadata);
  EXPECT_EQ(metadata.error(), firebase::storage::kErrorObjectNotFound);
  EXPECT_FALSE(metadata.result()->is_valid());
  Future<std::string> url = ref.GetDownloadUrl();
  Completed(url);
  EXPECT_EQ(url.error(), firebase::storage::kErrorObjectNotFound);
  Future<void> deleted = ref.Delete();
  Completed(deleted);
  EXPECT_EQ(deleted.error(), firebase::storage::kErrorObjectNotFound);
  EXPECT_STREQ(firebase::storage::GetErrorMessage(firebase::storage::kErrorObjectNotFound),
               "No object exists at the desired reference.");
  // An invalid reference fails at once.
  Future<Metadata> invalid = StorageReference().GetMetadata();
  EXPECT_EQ(invalid.status(), firebase::kFutureStatusComplete);
  EXPECT_EQ(invalid.error(), firebase::storage::kErrorUnknown);
}

TEST_P(StorageTest, DownloadUrlAndDelete) {
  StorageReference ref = storage->GetReference("share/file.txt");
  Succeeded(ref.PutBytes("shared", 6));
  Future<std::string> url = ref.GetDownloadUrl();
  const std::string& text = Succeeded(url);
  EXPECT_EQ(text.rfind(emulator().base_url() + "/v0/b/" + kBucket + "/o/share%2Ffile.txt?alt=media&token=", 0), 0u)
      << text;
  EXPECT_EQ(ref.GetDownloadUrlLastResult(), url);
  EXPECT_EQ(storage->GetReferenceFromUrl(text).full_path(), "share/file.txt");
  Future<void> deleted = ref.Delete();
  Completed(deleted);
  EXPECT_EQ(deleted.error(), 0);
  EXPECT_EQ(deleted.result(), nullptr);  // Future<void>
  EXPECT_EQ(ref.DeleteLastResult(), deleted);
  EXPECT_EQ(Completed(ref.GetMetadata()).error(), firebase::storage::kErrorObjectNotFound);
}

TEST_P(StorageTest, PutFileWithListenerAndController) {
  std::string bytes = RandomBytes(3 * 1024 * 1024 + 17, 1);
  std::string path = TempFile(bytes);
  StorageReference ref = storage->GetReference("files/big.bin");
  RecordingListener listener;
  Controller controller;
  EXPECT_FALSE(controller.is_valid());
  EXPECT_FALSE(controller.Pause());
  Future<Metadata> put = ref.PutFile(path.c_str(), &listener, &controller);
  EXPECT_TRUE(controller.is_valid());
  EXPECT_EQ(controller.GetReference().full_path(), "files/big.bin");
  const Metadata& stored = Succeeded(put);
  EXPECT_EQ(ref.PutFileLastResult(), put);
  EXPECT_EQ(stored.size_bytes(), static_cast<int64_t>(bytes.size()));
  EXPECT_STREQ(stored.content_type(), "application/octet-stream");
  std::vector<int64_t> progress = listener.Progress();
  ASSERT_FALSE(progress.empty());
  EXPECT_TRUE(std::is_sorted(progress.begin(), progress.end()));
  EXPECT_LE(progress.back(), static_cast<int64_t>(bytes.size()));
  EXPECT_EQ(listener.total, static_cast<int64_t>(bytes.size()));
  EXPECT_EQ(listener.reference_path, "files/big.bin");
  // After the end the controller keeps the final counts and controls nothing.
  EXPECT_EQ(controller.bytes_transferred(), static_cast<int64_t>(bytes.size()));
  EXPECT_EQ(controller.total_byte_count(), static_cast<int64_t>(bytes.size()));
  EXPECT_FALSE(controller.Pause());
  EXPECT_FALSE(controller.Cancel());
  EXPECT_FALSE(controller.is_paused());
  EXPECT_EQ(emulator().ObjectBytes(kBucket, "files%2Fbig.bin"), bytes);

  // PutFile with metadata; a missing file fails at once.
  Metadata typed;
  typed.set_content_type("application/x-big");
  EXPECT_STREQ(Succeeded(ref.PutFile(path.c_str(), typed)).content_type(), "application/x-big");
  Future<Metadata> missing = ref.PutFile("/nonexistent/file.bin");
  EXPECT_EQ(missing.status(), firebase::kFutureStatusComplete);
  EXPECT_EQ(missing.error(), firebase::storage::kErrorUnknown);
  EXPECT_NE(std::string(missing.error_message()).find("/nonexistent/file.bin"), std::string::npos);
}

TEST_P(StorageTest, PauseInOnProgressThenResume) {
  // The server holds the upload request, so the pause lands before the upload can finish.
  emulator().AddFault(R"({"match": {"method": "PUT", "query_contains": "upload_id"}, "times": 1,
                          "action": {"delay_ms": 1500}})");
  std::string bytes = RandomBytes(2 * 1024 * 1024, 2);
  StorageReference ref = storage->GetReference("files/paused.bin");
  RecordingListener listener(/*pause_on_first_progress=*/true);
  Controller controller;
  Future<Metadata> put = ref.PutBytes(bytes.data(), bytes.size(), &listener, &controller);
  ASSERT_TRUE(listener.paused.WaitFor());
  EXPECT_TRUE(listener.pause_accepted);
  EXPECT_TRUE(listener.paused_state);
  EXPECT_TRUE(controller.is_paused());
  EXPECT_FALSE(controller.Pause());  // already paused
  EXPECT_EQ(put.status(), firebase::kFutureStatusPending);
  EXPECT_FALSE(put.Wait(200));  // stays paused
  EXPECT_TRUE(controller.Resume());
  EXPECT_EQ(Succeeded(put).size_bytes(), static_cast<int64_t>(bytes.size()));
  EXPECT_EQ(emulator().ObjectBytes(kBucket, "files%2Fpaused.bin"), bytes);
}

TEST_P(StorageTest, CancelFailsTheFutureWithCancelled) {
  emulator().AddFault(R"({"match": {"method": "PUT", "query_contains": "upload_id"}, "times": 1,
                          "action": {"delay_ms": 3000}})");
  std::string bytes = RandomBytes(1024 * 1024, 3);
  Controller controller;
  Future<Metadata> put = storage->GetReference("files/cancelled.bin").PutBytes(bytes.data(), bytes.size(), nullptr, &controller);
  EXPECT_TRUE(controller.Cancel());
  Completed(put);
  EXPECT_EQ(put.error(), firebase::storage::kErrorCancelled);
  EXPECT_FALSE(put.result()->is_valid());
}

// Pauses at the first progress past 256 KiB; `settled` rises at the pause.
class PausingPast256KiB : public Listener {
 public:
  explicit PausingPast256KiB(Signal* settled) : settled_(settled) {}
  void OnProgress(Controller* controller) override {
    int64_t bytes = controller->bytes_transferred();
    int64_t none = 0;
    if (bytes > 256 * 1024 && pausing_at.compare_exchange_strong(none, bytes)) controller->Pause();
  }
  void OnPaused(Controller*) override {
    paused = true;
    settled_->Raise();
  }
  std::atomic<int64_t> pausing_at{0};
  std::atomic<bool> paused{false};

 private:
  Signal* settled_;
};

// A pause from OnProgress takes effect before a download's end however fast the link (the core
// ends a download only after its progress observers returned; the Listener runs in one): 20
// downloads of 1 MiB, each request held 300 ms so that the Listener is there before any byte.
TEST_P(StorageTest, PauseFromOnProgressTakesEffectBeforeADownloadEnds) {
  std::string bytes = RandomBytes(1024 * 1024, 21);
  StorageReference ref = storage->GetReference("held/1mb.bin");
  Succeeded(ref.PutBytes(bytes.data(), bytes.size()));
  std::vector<int> ended_first;
  for (int attempt = 0; attempt < 20; attempt++) {
    emulator().AddFault(std::string(R"({"match": {"method": "GET", "path_prefix": "/v0/b/)") + kBucket +
                        R"(/o/held%2F1mb.bin"}, "times": 1, "action": {"delay_ms": 300}})");
    std::string local = TempFile("");
    auto settled = std::make_shared<Signal>();  // the completion callback may run after Wait() returned
    PausingPast256KiB listener(settled.get());
    Controller controller;
    Future<size_t> download = ref.GetFile(local.c_str(), &listener, &controller);
    download.OnCompletion([settled](const firebase::FutureBase&) { settled->Raise(); });
    ASSERT_TRUE(settled->WaitFor());
    if (!listener.paused) {
      ended_first.push_back(attempt);
      continue;
    }
    EXPECT_GE(controller.bytes_transferred(), listener.pausing_at.load());
    EXPECT_TRUE(controller.Resume());
    EXPECT_EQ(Succeeded(download), bytes.size());
    EXPECT_EQ(ReadLocal(local), bytes);
  }
  EXPECT_TRUE(ended_first.empty()) << ended_first.size() << " downloads ended before their pause took effect";
}

// Counts OnProgress calls that came after its operation's Future completed.
class LateProgress : public Listener {
 public:
  void OnProgress(Controller*) override {
    if (completed) late++;
  }
  void OnPaused(Controller*) override {}
  std::atomic<bool> completed{false};
  std::atomic<int> late{0};
};

// No OnProgress after the Future completed: 300 small uploads, 100 at a time. The listeners
// live to the end of the test, and it waits for every completion callback (Wait() may return
// before a Future's callback ran).
TEST_P(StorageTest, NoProgressAfterTheFutureCompleted) {
  constexpr int kUploads = 300;
  std::vector<std::unique_ptr<LateProgress>> listeners;
  std::atomic<int> completions{0};
  Signal all_completed;
  for (int batch = 0; batch < 3; batch++) {
    std::vector<Future<Metadata>> uploads;
    for (int i = 0; i < 100; i++) {
      listeners.push_back(std::make_unique<LateProgress>());
      LateProgress* listener = listeners.back().get();
      uploads.push_back(storage->GetReference("order/" + std::to_string(batch * 100 + i)).PutBytes("seventeen bytes!!", 17, listener));
      uploads.back().OnCompletion([listener, &completions, &all_completed](const Future<Metadata>&) {
        listener->completed = true;
        if (++completions == kUploads) all_completed.Raise();
      });
    }
    for (auto& upload : uploads) Succeeded(upload);
  }
  ASSERT_TRUE(all_completed.WaitFor());
  int late = 0;
  for (auto& listener : listeners) late += listener->late;
  EXPECT_EQ(late, 0);
}

TEST_P(StorageTest, GetFileAndGetBytesWithListener) {
  std::string bytes = RandomBytes(600 * 1024, 4);
  StorageReference ref = storage->GetReference("downloads/blob.bin");
  Succeeded(ref.PutBytes(bytes.data(), bytes.size()));

  std::string local = TempFile("");
  RecordingListener listener;
  Controller controller;
  Future<size_t> file = ref.GetFile(("file://" + local).c_str(), &listener, &controller);  // as the guides
  EXPECT_EQ(Succeeded(file), bytes.size());
  EXPECT_EQ(ref.GetFileLastResult(), file);
  EXPECT_EQ(ReadLocal(local), bytes);
  EXPECT_FALSE(listener.Progress().empty());
  EXPECT_EQ(controller.bytes_transferred(), static_cast<int64_t>(bytes.size()));

  std::vector<char> buffer(bytes.size() + 10);
  RecordingListener byte_listener;
  EXPECT_EQ(Succeeded(ref.GetBytes(buffer.data(), buffer.size(), &byte_listener)), bytes.size());
  EXPECT_EQ(std::string(buffer.data(), bytes.size()), bytes);
  EXPECT_FALSE(byte_listener.Progress().empty());
  std::vector<char> small(100);
  Controller small_controller;
  Future<size_t> too_big = ref.GetBytes(small.data(), small.size(), nullptr, &small_controller);
  EXPECT_EQ(Completed(too_big).error(), firebase::storage::kErrorDownloadSizeExceeded);

  Future<size_t> missing = storage->GetReference("downloads/none").GetFile(TempFile("keep").c_str());
  EXPECT_EQ(Completed(missing).error(), firebase::storage::kErrorObjectNotFound);
}

TEST_P(StorageTest, ListPagesItemsAndPrefixes) {
  for (const char* path : {"list/a.txt", "list/b.txt", "list/c.txt", "list/sub/d.txt", "list/other/e.txt"})
    Succeeded(storage->GetReference(path).PutBytes("x", 1));
  StorageReference dir = storage->GetReference("list");
  std::set<std::string> items, prefixes;
  std::string token;
  int pages = 0;
  do {
    Future<StorageListResult> page = dir.List(2, token.empty() ? nullptr : token.c_str());
    const StorageListResult& result = Succeeded(page);
    EXPECT_EQ(dir.ListLastResult(), page);
    EXPECT_TRUE(result.is_valid());
    // Production pages items and prefixes together; firebase-tools pages items only and
    // repeats every prefix on each page (docs/emulator.md).
    EXPECT_LE(GetParam() == "production" ? result.items().size() + result.prefixes().size() : result.items().size(), 2u);
    for (const auto& item : result.items()) items.insert(StorageReference(item).full_path());
    for (const auto& prefix : result.prefixes()) prefixes.insert(StorageReference(prefix).full_path());
    token = result.next_page_token();
    ASSERT_LT(++pages, 10);
  } while (!token.empty());
  EXPECT_GE(pages, 2);
  EXPECT_EQ(items, (std::set<std::string>{"list/a.txt", "list/b.txt", "list/c.txt"}));
  EXPECT_EQ(prefixes, (std::set<std::string>{"list/other", "list/sub"}));

  const StorageListResult& all = Succeeded(dir.List());
  EXPECT_EQ(all.items().size(), 3u);
  EXPECT_EQ(all.next_page_token(), "");
  EXPECT_FALSE(StorageListResult().is_valid());
  EXPECT_TRUE(StorageListResult().items().empty());
  for (int bad_size : {0, -1, 1001}) {
    Future<StorageListResult> bad = dir.List(bad_size);
    EXPECT_EQ(bad.status(), firebase::kFutureStatusComplete);  // refused at once
    EXPECT_EQ(bad.error(), firebase::storage::kErrorUnknown);
    EXPECT_FALSE(bad.result()->is_valid());
  }
}

TEST_P(StorageTest, FutureOutlivesNothingItNeeds) {
  // A Future dropped before completion, then the Storage deleted under running transfers:
  // their Futures complete with kErrorCancelled (the crash of firebase-cpp-sdk#356 cannot happen).
  emulator().AddFault(R"({"match": {"method": "PUT", "query_contains": "upload_id"}, "times": 1,
                          "action": {"delay_ms": 5000}})");
  std::string bytes = RandomBytes(512 * 1024, 5);
  StorageReference ref = storage->GetReference("files/dropped.bin");
  ref.PutBytes(bytes.data(), bytes.size());  // the Future is dropped at once
  RecordingListener listener;
  Future<Metadata> kept = storage->GetReference("files/kept.bin").PutBytes(bytes.data(), bytes.size(), &listener);
  Signal completed;
  kept.OnCompletion([&](const Future<Metadata>&) { completed.Raise(); });
  delete storage;
  storage = nullptr;
  ASSERT_TRUE(completed.WaitFor());
  EXPECT_EQ(kept.error(), firebase::storage::kErrorCancelled);
  // References outlive their Storage: their operations fail, nothing crashes.
  Future<Metadata> after = ref.GetMetadata();
  EXPECT_NE(Completed(after).error(), 0);
}

TEST_P(StorageTest, OneReferenceFromManyThreads) {
  StorageReference dir = storage->GetReference("threads");
  std::vector<std::thread> threads;
  std::vector<Future<Metadata>> uploads(4);
  for (int i = 0; i < 4; i++)
    threads.emplace_back([&, i] {
      std::string text = "thread " + std::to_string(i);
      uploads[i] = dir.Child(std::to_string(i) + ".txt").PutBytes(text.data(), text.size());
      dir.GetMetadata();  // the same reference's operations and last results, concurrently
      dir.DeleteLastResult();
    });
  for (auto& thread : threads) thread.join();
  for (int i = 0; i < 4; i++) EXPECT_EQ(Succeeded(uploads[i]).size_bytes(), 8);
  EXPECT_EQ(Succeeded(dir.List()).items().size(), 4u);
  EXPECT_EQ(Completed(dir.GetMetadataLastResult()).error(), firebase::storage::kErrorObjectNotFound);
}
