// test_lifetimes.cc — the SDK's lifetimes, both flavors: deleting an App invalidates (never
// deletes) its Storage and Auth and everything made from them, which are then deleted in any
// order; deleting a Storage or an Auth alone invalidates what came from it. Operations in
// flight end with kErrorCancelled, later ones fail at once; nothing crashes (ASan, valgrind),
// and main() checks that every library handle was released.
#include <atomic>
#include <thread>
#include <vector>

#include "firebase/auth.h"
#include "firebase/storage.h"
#include "fixtures.h"

using firebase::Future;
using firebase::auth::Auth;
using firebase::storage::Controller;
using firebase::storage::Listener;
using firebase::storage::Metadata;
using firebase::storage::StorageListResult;
using firebase::storage::StorageReference;

namespace {

class NullListener : public Listener {
 public:
  void OnPaused(Controller*) override {}
  void OnProgress(Controller*) override {}
};

class NullStateListener : public firebase::auth::AuthStateListener {
 public:
  void OnAuthStateChanged(Auth*) override {}
};

// Everything a Storage hands out, made while it is valid, and one upload held in flight.
struct StorageObjects {
  StorageReference ref;
  Metadata metadata;
  StorageListResult list;
  Controller controller;
  Future<Metadata> in_flight;
  NullListener listener;
};

}  // namespace

class LifetimeTest : public FlavorAuthTest {
 protected:
  // Fills objects; the upload's request is held by the emulator for 20 s, so that it is still
  // running when the test deletes something.
  void MakeObjects(StorageObjects& objects) {
    objects.ref = storage->GetReference("lifetimes/a.txt");
    objects.metadata = Succeeded(objects.ref.PutBytes("abc", 3));
    objects.list = Succeeded(storage->GetReference("lifetimes").List());
    emulator().AddFault(R"({"match": {"method": "POST", "path_prefix": "/v0/b/"}, "times": 1,
                            "action": {"delay_ms": 20000}})");
    objects.in_flight =
        storage->GetReference("lifetimes/held.txt").PutBytes("held", 4, &objects.listener, &objects.controller);
    ASSERT_TRUE(objects.ref.is_valid() && objects.metadata.is_valid() && objects.list.is_valid());
    ASSERT_TRUE(objects.controller.is_valid());
    EXPECT_EQ(objects.in_flight.status(), firebase::kFutureStatusPending);
  }

  // What the SDK promises of everything made from a deleted Storage.
  static void ExpectInvalid(StorageObjects& objects) {
    // The running upload ended before the deletion returned, cancelled.
    EXPECT_EQ(objects.in_flight.status(), firebase::kFutureStatusComplete);
    EXPECT_EQ(objects.in_flight.error(), firebase::storage::kErrorCancelled);
    EXPECT_FALSE(objects.ref.is_valid());
    EXPECT_EQ(objects.ref.storage(), nullptr);
    EXPECT_EQ(objects.ref.full_path(), "");
    EXPECT_FALSE(objects.ref.Child("b").is_valid());
    EXPECT_FALSE(objects.ref.GetParent().is_valid());
    EXPECT_EQ(objects.ref.PutBytesLastResult().status(), firebase::kFutureStatusInvalid);
    EXPECT_FALSE(objects.metadata.is_valid());
    EXPECT_FALSE(objects.metadata.GetReference().is_valid());
    EXPECT_FALSE(objects.list.is_valid());
    for (auto& item : objects.list.items()) EXPECT_FALSE(item.is_valid());
    EXPECT_FALSE(objects.controller.is_valid());
    EXPECT_FALSE(objects.controller.Pause());
    EXPECT_FALSE(objects.controller.Cancel());
    EXPECT_FALSE(objects.controller.GetReference().is_valid());
    // Operations fail at once, with a message that says why.
    for (const firebase::FutureBase& failed :
         {firebase::FutureBase(objects.ref.GetMetadata()), firebase::FutureBase(objects.ref.PutBytes("x", 1)),
          firebase::FutureBase(objects.ref.Delete()), firebase::FutureBase(objects.ref.List())}) {
      EXPECT_EQ(failed.status(), firebase::kFutureStatusComplete);
      EXPECT_EQ(failed.error(), firebase::storage::kErrorUnknown);
      EXPECT_NE(std::string(failed.error_message()).find("was deleted"), std::string::npos) << failed.error_message();
    }
  }
};
INSTANTIATE_TEST_SUITE_P(Flavors, LifetimeTest, FBS_BOTH_FLAVORS);

// The SDK's documented teardown: App::Create, GetAuth, GetInstance, `delete app`, then the
// Storage and the Auth (in both orders), with an upload and a listener in flight.
TEST_P(LifetimeTest, AppFirstInvalidatesItsStorageAndAuth) {
  for (bool storage_before_auth : {true, false}) {
    SCOPED_TRACE(storage_before_auth ? "storage deleted before auth" : "auth deleted before storage");
    if (!app) SetUp();
    firebase::auth::User user = Succeeded(auth->SignInAnonymously()).user;
    NullStateListener state_listener;
    auth->AddAuthStateListener(&state_listener);
    StorageObjects objects;
    MakeObjects(objects);

    delete app;
    app = nullptr;
    ExpectInvalid(objects);
    EXPECT_EQ(storage->app(), nullptr);
    EXPECT_FALSE(storage->GetReference("x").is_valid());
    storage->set_max_operation_retry_time(3);  // refused on stderr
    EXPECT_FALSE(auth->current_user().is_valid());
    EXPECT_FALSE(user.is_valid());
    EXPECT_EQ(Completed(user.GetToken(false)).error(), firebase::auth::kAuthErrorNoSignedInUser);
    Future<firebase::auth::AuthResult> sign_in = auth->SignInAnonymously();
    EXPECT_EQ(sign_in.status(), firebase::kFutureStatusComplete);
    EXPECT_EQ(sign_in.error(), firebase::auth::kAuthErrorFailure);
    auth->SignOut();  // nothing to do, said on stderr
    auth->RemoveAuthStateListener(&state_listener);

    if (storage_before_auth) {
      delete storage;
      delete auth;
    } else {
      delete auth;
      delete storage;
    }
    storage = nullptr;
    auth = nullptr;
    EXPECT_FALSE(objects.ref.is_valid());  // and still safe to use and destroy after both
  }
}

TEST_P(LifetimeTest, StorageFirstInvalidatesItsObjectsOnly) {
  StorageObjects objects;
  MakeObjects(objects);
  delete storage;
  storage = nullptr;
  ExpectInvalid(objects);

  // The App and its Auth go on; a new Storage of the same URL works.
  storage = firebase::storage::Storage::GetInstance(app);
  ASSERT_NE(storage, nullptr);
  storage->UseEmulator(emulator().host(), emulator().port());
  EXPECT_EQ(Succeeded(storage->GetReference("lifetimes/a.txt").GetMetadata()).size_bytes(), 3);
  EXPECT_TRUE(Succeeded(auth->SignInAnonymously()).user.is_valid());
}

TEST_P(LifetimeTest, AuthFirstLeavesStorageWorking) {
  StorageObjects objects;
  NullStateListener state_listener;
  auth->AddAuthStateListener(&state_listener);
  firebase::auth::User user = Succeeded(auth->SignInAnonymously()).user;
  MakeObjects(objects);
  Future<firebase::auth::AuthResult> sign_in = auth->SignInAnonymously();  // may still run
  delete auth;
  auth = nullptr;
  Completed(sign_in);
  EXPECT_FALSE(user.is_valid());
  EXPECT_TRUE(objects.ref.is_valid());
  EXPECT_TRUE(objects.controller.is_valid());
  EXPECT_TRUE(objects.controller.Cancel());
  EXPECT_EQ(Completed(objects.in_flight).error(), firebase::storage::kErrorCancelled);
  EXPECT_EQ(Succeeded(objects.ref.GetMetadata()).size_bytes(), 3);
  // A new Auth of the App works, and the App's deletion then invalidates it too.
  auth = Auth::GetAuth(app);
  ASSERT_NE(auth, nullptr);
  auth->UseEmulator(emulator().host(), static_cast<uint32_t>(emulator().port()));
  EXPECT_TRUE(Succeeded(auth->SignInAnonymously()).user.is_valid());
  delete app;
  app = nullptr;
  EXPECT_FALSE(auth->current_user().is_valid());
  EXPECT_FALSE(objects.ref.is_valid());
}

// Deleting from the callback that an operation's completion runs on the Storage's thread.
TEST_P(LifetimeTest, StorageDeletedInACompletionCallback) {
  Signal deleted;
  firebase::storage::Storage* doomed = storage;
  storage = nullptr;
  doomed->GetReference("lifetimes/none.txt").GetMetadata().OnCompletion([&](const Future<Metadata>&) {
    delete doomed;
    deleted.Raise();
  });
  ASSERT_TRUE(deleted.WaitFor());
}

// A stress loop: other threads keep using references (operations, children, validity) while the
// App is deleted under them, then the Storage; every Future completes, nothing crashes or races
// (ASan, UBSan, valgrind).
TEST_P(LifetimeTest, ReferencesInUseOnOtherThreadsWhileTheAppIsDeleted) {
  const std::string kRacePath = "lifetimes/race.txt";
  for (int round = 0; round < 6; round++) {
    if (!app) SetUp();
    StorageReference ref = storage->GetReference(kRacePath);
    std::atomic<bool> stop{false};
    std::atomic<int> started{0};
    std::vector<std::vector<firebase::FutureBase>> futures(2);
    std::vector<std::thread> users;
    for (auto& mine : futures)
      users.emplace_back([&, ref, &mine = mine]() mutable {
        started++;
        while (!stop) {
          if (mine.size() < 16) {  // a few operations (they are what is slow), then the cheap calls
            mine.push_back(ref.PutBytes("r", 1));
            mine.push_back(ref.Child("child").GetMetadata());
          }
          std::string path = ref.full_path();  // "" once invalid
          EXPECT_TRUE(path.empty() || path == kRacePath) << path;
          // Under valgrind, which runs one thread at a time, two threads that never block would
          // starve the deleting one (a run took 146 s): give way once a round.
          std::this_thread::yield();
        }
      });
    while (started < 2) std::this_thread::yield();
    delete app;
    app = nullptr;
    stop = true;
    for (auto& user : users) user.join();
    delete storage;
    delete auth;
    storage = nullptr;
    auth = nullptr;
    for (auto& mine : futures)
      for (auto& future : mine) {
        int error = Completed(future).error();  // done before the deletion, cancelled, or refused after it
        EXPECT_TRUE(error == 0 || error == firebase::storage::kErrorObjectNotFound ||
                    error == firebase::storage::kErrorCancelled || error == firebase::storage::kErrorUnknown)
            << error << " " << future.error_message();
      }
  }
}
