// test_hpp.cc — fbstorage.hpp (the C++ RAII layer) against the bundled emulator, both flavors.
#include <atomic>

#include "fbstorage.hpp"
#include "fixtures.h"

namespace {

// Collects the statuses a task's observers saw.
struct Events {
  void Add(fbstorage::TaskStatus status) {
    std::lock_guard<std::mutex> lock(mutex);
    seen.push_back(status);
    if (status == fbstorage::TaskStatus::kPause) paused.Raise();
  }
  size_t Count(fbstorage::TaskStatus status) {
    std::lock_guard<std::mutex> lock(mutex);
    return std::count(seen.begin(), seen.end(), status);
  }
  std::mutex mutex;
  std::vector<fbstorage::TaskStatus> seen;
  Signal paused;
};

const char kHoldUploads[] = R"({"match": {"method": "PUT", "query_contains": "upload_id"}, "times": 1,
                                "action": {"delay_ms": 1500}})";

}  // namespace

class HppTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    emulator().Reset();
    storage.use_emulator(emulator().host(), emulator().port());
  }
  const Emulator& emulator() const { return EmulatorFor(GetParam()); }
  std::string Temp(const std::string& bytes) { return temp_files.Make(bytes); }
  fbstorage::Storage storage{kBucket};
  TempFiles temp_files;
};
INSTANTIATE_TEST_SUITE_P(Flavors, HppTest, FBS_BOTH_FLAVORS);

TEST_P(HppTest, ErrorsAreExceptionsWithCodeStatusAndBody) {
  try {
    storage.reference("missing.txt").metadata();
    FAIL() << "no exception";
  } catch (const fbstorage::Error& e) {
    EXPECT_EQ(e.code(), FBS_ERR_OBJECT_NOT_FOUND);
    EXPECT_STREQ(e.name(), "FBS_ERR_OBJECT_NOT_FOUND");
    EXPECT_EQ(e.http_status(), 404);
    EXPECT_FALSE(e.server_response().empty());
    EXPECT_NE(std::string(e.what()), "");
  }
  // A view with a NUL would be cut by the C API: refused before anything is sent.
  using namespace std::string_literals;
  EXPECT_THROW(storage.reference("a\0b"s), fbstorage::Error);
  try {
    fbstorage::Storage("bucket/with/path");
  } catch (const fbstorage::Error& e) {
    EXPECT_EQ(e.code(), FBS_ERR_PATH);
  }
  fbstorage::Reference ref = storage.reference("x");
  fbstorage::Reference moved = std::move(ref);
  EXPECT_EQ(moved.full_path(), "x");
  try {
    ref.full_path();  // NOLINT: moved-from objects throw, as documented
    FAIL() << "no exception";
  } catch (const fbstorage::Error& e) {
    EXPECT_EQ(e.code(), FBS_ERR_INVALID_ARGUMENT);
  }
}

TEST_P(HppTest, StorageSettingsAndReferences) {
  EXPECT_EQ(storage.bucket(), kBucket);
  storage.set_upload_chunk_size(512 * 1024);
  EXPECT_EQ(storage.upload_chunk_size(), 512 * 1024);
  storage.set_max_upload_retry_time(10);
  storage.set_max_download_retry_time(11);
  storage.set_max_operation_retry_time(12);
  EXPECT_EQ(storage.max_upload_retry_time(), 10);
  EXPECT_EQ(storage.max_download_retry_time(), 11);
  EXPECT_EQ(storage.max_operation_retry_time(), 12);
  EXPECT_THROW(storage.set_max_operation_retry_time(0), fbstorage::Error);
  storage.set_connect_timeout(5);
  storage.set_verify_md5(true);
  storage.set_ca_file(std::nullopt);
  storage.set_app_check_token("app-check");
  storage.set_auth_token(std::nullopt);
  EXPECT_THROW(storage.set_auth_token("bad\ntoken"), fbstorage::Error);

  fbstorage::Reference ref = storage.reference("a/b/c.txt");
  EXPECT_EQ(ref.name(), "c.txt");
  EXPECT_EQ(ref.bucket(), kBucket);
  EXPECT_EQ(ref.parent()->full_path(), "a/b");
  EXPECT_EQ(ref.root().full_path(), "");
  EXPECT_FALSE(ref.root().parent().has_value());
  EXPECT_EQ(ref.child("d/e").full_path(), "a/b/c.txt/d/e");
  EXPECT_EQ(ref.copy().full_path(), "a/b/c.txt");
  EXPECT_EQ(storage.reference_for_url(std::string("gs://") + kBucket + "/z").full_path(), "z");
  EXPECT_THROW(storage.reference_for_url("gs://other/z"), fbstorage::Error);
}

TEST_P(HppTest, MetadataRoundTrip) {
  fbstorage::Metadata metadata;
  metadata.set_content_type("text/plain").set_cache_control("no-cache").set_custom("a", "1").set_custom("b", "2");
  metadata.remove_custom("b");
  EXPECT_EQ(metadata.content_type(), "text/plain");
  EXPECT_EQ(metadata.custom_metadata(), (std::map<std::string, std::string>{{"a", "1"}}));
  EXPECT_FALSE(metadata.size().has_value());
  fbstorage::Reference ref = storage.reference("meta/m.txt");
  fbstorage::Task task = ref.put_data(std::string_view("hello"), &metadata);
  EXPECT_TRUE(task.wait());
  fbstorage::Metadata stored = ref.metadata();
  EXPECT_EQ(stored.size(), 5);
  EXPECT_EQ(stored.content_type(), "text/plain");
  EXPECT_EQ(stored.cache_control(), "no-cache");
  EXPECT_EQ(stored.custom("a"), "1");
  EXPECT_TRUE(stored.time_created_ms().has_value());
  EXPECT_TRUE(stored.md5_hash().has_value());

  fbstorage::Metadata changes;
  changes.set_cache_control(std::nullopt).set_custom("a", std::nullopt).set_custom("c", "3");
  fbstorage::Metadata updated = ref.update_metadata(changes);
  EXPECT_EQ(updated.custom_metadata(), (std::map<std::string, std::string>{{"c", "3"}}));
  fbstorage::Metadata cleared = ref.update_metadata(fbstorage::Metadata().clear_custom());
  EXPECT_TRUE(cleared.custom_metadata().empty());
  EXPECT_EQ(ref.get_data(), "hello");
  EXPECT_THROW(ref.get_data(2), fbstorage::Error);
  EXPECT_NE(ref.download_url().find("token="), std::string::npos);
  ref.delete_object();
  EXPECT_THROW(ref.delete_object(), fbstorage::Error);
}

TEST_P(HppTest, TaskObserversSnapshotsAndRemoval) {
  emulator().AddFault(kHoldUploads);
  storage.set_upload_chunk_size(256 * 1024);
  std::string bytes = RandomBytes(1024 * 1024, 7);
  fbstorage::Reference ref = storage.reference("tasks/observed.bin");
  fbstorage::Task task = ref.put_data(bytes);
  Events events, removed;
  std::atomic<int64_t> last_bytes{0};
  for (auto status : {fbstorage::TaskStatus::kResume, fbstorage::TaskStatus::kProgress, fbstorage::TaskStatus::kPause,
                      fbstorage::TaskStatus::kSuccess})
    task.observe(status, [&](const fbstorage::SnapshotView& s) {
      events.Add(s.status());
      last_bytes = s.bytes_transferred();
    });
  auto gone = task.observe(fbstorage::TaskStatus::kProgress, [&](const fbstorage::SnapshotView& s) { removed.Add(s.status()); });
  task.remove_observer(gone);  // not called after this returns
  // The task runs already: a progress event may have reached it before the removal, none after.
  size_t removed_calls = removed.Count(fbstorage::TaskStatus::kProgress);
  task.pause();
  ASSERT_TRUE(events.paused.WaitFor());
  fbstorage::Snapshot paused = task.snapshot();
  EXPECT_EQ(paused.status(), fbstorage::TaskStatus::kPause);
  EXPECT_EQ(paused.total_bytes(), static_cast<int64_t>(bytes.size()));
  EXPECT_FALSE(paused.error().has_value());
  EXPECT_EQ(paused.reference().full_path(), "tasks/observed.bin");
  EXPECT_FALSE(task.wait(0));  // still paused
  task.resume();
  EXPECT_TRUE(task.wait());
  EXPECT_EQ(events.Count(fbstorage::TaskStatus::kSuccess), 1u);
  EXPECT_EQ(events.Count(fbstorage::TaskStatus::kPause), 1u);
  EXPECT_EQ(removed.Count(fbstorage::TaskStatus::kProgress), removed_calls);
  EXPECT_EQ(last_bytes, static_cast<int64_t>(bytes.size()));
  fbstorage::Snapshot done = task.snapshot();
  EXPECT_EQ(done.metadata()->size(), static_cast<int64_t>(bytes.size()));

  // A failed task throws its failure from wait().
  fbstorage::Task missing = storage.reference("tasks/none").write_to_file(Temp(""));
  try {
    missing.wait();
    FAIL() << "no exception";
  } catch (const fbstorage::Error& e) {
    EXPECT_EQ(e.code(), FBS_ERR_OBJECT_NOT_FOUND);
  }
  fbstorage::Task moved = std::move(missing);
  EXPECT_EQ(moved.snapshot().error()->code(), FBS_ERR_OBJECT_NOT_FOUND);
}

TEST_P(HppTest, ResumableSessionContinuesInANewTask) {
  emulator().AddFault(kHoldUploads);
  storage.set_upload_chunk_size(256 * 1024);
  std::string bytes = RandomBytes(1024 * 1024 + 3, 8);
  std::string path = Temp(bytes);
  fbstorage::Reference ref = storage.reference("tasks/resumed.bin");
  std::string session;
  {
    // Paused at its first progress (the session exists by then), left paused: a process that
    // stopped here would have persisted the session string.
    fbstorage::Task first = ref.put_file(path);
    Events events;
    std::atomic<bool> pausing{false};
    first.observe(fbstorage::TaskStatus::kProgress, [&](const fbstorage::SnapshotView&) {
      if (!pausing.exchange(true)) first.pause();
    });
    first.observe(fbstorage::TaskStatus::kPause, [&](const fbstorage::SnapshotView& s) { events.Add(s.status()); });
    ASSERT_TRUE(events.paused.WaitFor());
    std::optional<std::string> saved = first.upload_session();
    ASSERT_TRUE(saved.has_value());
    session = *saved;
  }  // its observers are removed; the task stays paused
  fbstorage::Metadata metadata;
  metadata.set_content_type("application/x-resumed");
  fbstorage::Task second = ref.put_file_resuming(path, session, &metadata);
  EXPECT_TRUE(second.wait());
  EXPECT_EQ(emulator().ObjectBytes(kBucket, "tasks%2Fresumed.bin"), bytes);
  EXPECT_THROW(ref.put_file_resuming(path, "not a session"), fbstorage::Error);
}

TEST_P(HppTest, AsyncCompletionsGetResults) {
  fbstorage::Reference ref = storage.reference("async/a.txt");
  ref.put_data(std::string_view("async")).wait();
  Signal done;
  std::optional<int64_t> size;
  ref.metadata_async([&](fbstorage::Result<fbstorage::MetadataView> result) {
    size = result.value().size();
    done.Raise();
  });
  ASSERT_TRUE(done.WaitFor());
  EXPECT_EQ(size, 5);

  Signal failed;
  int code = 0;
  storage.reference("async/none").download_url_async([&](fbstorage::Result<std::string> result) {
    EXPECT_FALSE(result.ok());
    code = result.error()->code();
    EXPECT_THROW(result.value(), fbstorage::Error);
    failed.Raise();
  });
  ASSERT_TRUE(failed.WaitFor());
  EXPECT_EQ(code, FBS_ERR_OBJECT_NOT_FOUND);

  Signal listed;
  std::vector<std::string> names;
  storage.reference("async").list_async(10, std::nullopt, [&](fbstorage::Result<fbstorage::ListResultView> result) {
    for (auto& item : result.value().items()) names.push_back(item.name());
    listed.Raise();
  });
  ASSERT_TRUE(listed.WaitFor());
  EXPECT_EQ(names, std::vector<std::string>{"a.txt"});
  // An operation that cannot start throws at the call; its completion never runs.
  EXPECT_THROW(storage.reference("async").list_async(5000, std::nullopt, [](auto) { FAIL(); }), fbstorage::Error);

  Signal got;
  ref.get_data_async(-1, [&](fbstorage::Result<std::string> result) {
    EXPECT_EQ(result.value(), "async");
    got.Raise();
  });
  ASSERT_TRUE(got.WaitFor());
  Signal deleted;
  ref.delete_object_async([&](fbstorage::Result<void> result) {
    EXPECT_TRUE(result.ok());
    deleted.Raise();
  });
  ASSERT_TRUE(deleted.WaitFor());
  fbstorage::ListResult all = storage.reference("async").list_all();
  EXPECT_TRUE(all.items().empty());
  EXPECT_FALSE(all.page_token().has_value());
}

TEST_P(HppTest, AuthUsersListenersAndStorageUseAuth) {
  fbstorage::Auth auth("test-api-key", "demo-project");
  auth.use_emulator(emulator().host(), emulator().port());
  std::mutex mutex;
  std::vector<std::string> seen;
  std::condition_variable changed;
  auto listener = auth.add_state_listener([&](const fbstorage::UserView* user) {
    std::lock_guard<std::mutex> lock(mutex);
    seen.push_back(user ? user->uid() : "-");
    changed.notify_all();
  });
  fbstorage::User user = auth.sign_in_anonymously();
  EXPECT_TRUE(user.is_anonymous());
  EXPECT_EQ(user.sign_in_provider(), "anonymous");
  EXPECT_FALSE(user.refresh_token().empty());
  EXPECT_NE(user.claims_json().find(user.uid()), std::string::npos);
  EXPECT_TRUE(user.token_expiration_ms().has_value());
  EXPECT_EQ(auth.current_user()->uid(), user.uid());
  EXPECT_FALSE(auth.id_token(true).empty());
  {
    std::unique_lock<std::mutex> lock(mutex);
    ASSERT_TRUE(changed.wait_for(lock, std::chrono::seconds(30), [&] { return seen.size() >= 2; }));
    EXPECT_EQ(seen, (std::vector<std::string>{"-", user.uid()}));
  }
  auth.remove_listener(listener);

  emulator().SetRules(R"(rules_version = '2';
service firebase.storage { match /b/{bucket}/o { match /users/{uid}/{f=**} { allow read, write: if request.auth.uid == uid; } } })");
  storage.use_auth(&auth);
  storage.reference("users/" + user.uid() + "/x").put_data(std::string_view("x")).wait();
  try {
    storage.reference("users/other/x").put_data(std::string_view("x")).wait();
    FAIL() << "no exception";
  } catch (const fbstorage::Error& e) {
    EXPECT_EQ(e.code(), FBS_ERR_UNAUTHORIZED);
  }
  Signal signed_in;
  auth.sign_in_with_email_async("nobody@example.com", "password1", [&](fbstorage::Result<fbstorage::UserView> result) {
    EXPECT_EQ(result.error()->code(), FBS_ERR_AUTH_USER_NOT_FOUND);
    signed_in.Raise();
  });
  ASSERT_TRUE(signed_in.WaitFor());
  auth.sign_out();
  EXPECT_FALSE(auth.current_user().has_value());
  EXPECT_THROW(auth.id_token(), fbstorage::Error);
  storage.use_auth(nullptr);
}

TEST_P(HppTest, AccountLifecycleBlockingAndAsync) {
  fbstorage::Auth auth("test-api-key", "demo-project");
  auth.use_emulator(emulator().host(), emulator().port());
  EXPECT_THROW(fbstorage::Credential::email("", "secret-1"), fbstorage::Error);
  EXPECT_THROW(fbstorage::Credential::idp("google.com", std::nullopt, std::nullopt), fbstorage::Error);
  fbstorage::User anonymous = auth.sign_in_anonymously();
  fbstorage::User linked = auth.link_with_credential(fbstorage::Credential::email("hana@example.com", "secret-1"));
  EXPECT_EQ(linked.uid(), anonymous.uid());
  EXPECT_FALSE(linked.is_email_verified());
  auth.send_email_verification();
  auth.apply_action_code(PendingOobCodes(emulator(), "VERIFY_EMAIL", "hana@example.com").at(0).code);
  EXPECT_TRUE(auth.reload().is_email_verified());
  try {
    auth.link_with_credential(fbstorage::Credential::email("hana@example.com", "secret-1"));
    FAIL() << "no exception";
  } catch (const fbstorage::Error& e) {
    EXPECT_EQ(e.code(), FBS_ERR_AUTH_PROVIDER_ALREADY_LINKED);
  }
  EXPECT_EQ(auth.update_password("secret-2").uid(), anonymous.uid());
  EXPECT_EQ(auth.update_email("hana2@example.com").email(), "hana2@example.com");
  EXPECT_EQ(auth.reauthenticate(fbstorage::Credential::email("hana2@example.com", "secret-2")).uid(), anonymous.uid());
  auth.verify_before_update_email("hana3@example.com");
  EXPECT_EQ(PendingOobCodes(emulator(), "VERIFY_AND_CHANGE_EMAIL", "hana2@example.com").size(), 1u);

  auth.sign_out();
  auth.send_password_reset_email("hana2@example.com");
  std::string code = PendingOobCodes(emulator(), "PASSWORD_RESET", "hana2@example.com").at(0).code;
  EXPECT_EQ(auth.verify_password_reset_code(code), "hana2@example.com");
  auth.confirm_password_reset(code, "secret-3");
  EXPECT_EQ(auth.sign_in_with_credential(fbstorage::Credential::email("hana2@example.com", "secret-3")).uid(),
            anonymous.uid());

  // The async forms complete on the auth's callback thread; the credential may go at once.
  Signal unlinked, checked;
  auth.unlink_async("password", [&](fbstorage::Result<fbstorage::UserView> result) {
    EXPECT_TRUE(result.ok());
    EXPECT_EQ(result.ok() ? result.value().uid() : "", anonymous.uid());
    unlinked.Raise();
  });
  ASSERT_TRUE(unlinked.WaitFor());
  auth.verify_password_reset_code_async(code, [&](fbstorage::Result<std::string> result) {
    EXPECT_EQ(result.error() ? result.error()->code() : 0, FBS_ERR_AUTH_INVALID_ACTION_CODE);
    checked.Raise();
  });
  ASSERT_TRUE(checked.WaitFor());
  Signal signed_in;
  auth.sign_in_with_credential_async(fbstorage::Credential::idp("google.com", R"({"sub": "hana-g"})", std::nullopt),
                                     [&](fbstorage::Result<fbstorage::UserView> result) {
                                       EXPECT_EQ(result.ok() ? result.value().sign_in_provider() : "", "google.com");
                                       signed_in.Raise();
                                     });
  ASSERT_TRUE(signed_in.WaitFor());
}
