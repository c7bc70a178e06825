// upload.cc — the Firebase C++ SDK's Storage and Auth API on fbstorage: sign in anonymously,
// upload a file to users/<uid>/ with a progress line, pause at the first progress event and
// resume, then show its metadata, list the folder and print a download URL.
//
//   upload-example FILE
//
// Talks to the emulator named by FIREBASE_STORAGE_EMULATOR_HOST=host:port (Auth on the same
// port), as `make demo-cpp` starts it. Exits non-zero on failure.
// Build: c++ -std=c++17 upload.cc $(pkg-config --cflags --libs fbstorage-cpp)
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "firebase/app.h"
#include "firebase/auth.h"
#include "firebase/storage.h"

namespace {

// Listener callbacks run on the Storage's callback thread.
class ProgressPrinter : public firebase::storage::Listener {
 public:
  void OnProgress(firebase::storage::Controller* controller) override {
    std::printf("\r%lld / %lld bytes", static_cast<long long>(controller->bytes_transferred()),
                static_cast<long long>(controller->total_byte_count()));
    std::fflush(stdout);
    if (!pause_requested_.exchange(true)) controller->Pause();  // once, to show pause/resume
  }
  void OnPaused(firebase::storage::Controller* controller) override {
    std::printf("\npaused at %lld bytes\n", static_cast<long long>(controller->bytes_transferred()));
    paused_ = true;
  }
  bool paused() const { return paused_; }

 private:
  std::atomic<bool> pause_requested_{false}, paused_{false};
};

// Waits for a Future and reports its error; true on success.
template <class T>
bool Succeeded(const firebase::Future<T>& future, const char* what) {
  future.Wait(firebase::FutureBase::kWaitTimeoutInfinite);
  if (future.error() == 0) return true;
  std::fprintf(stderr, "%s failed (%d): %s\n", what, future.error(), future.error_message());
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const char* emulator = std::getenv("FIREBASE_STORAGE_EMULATOR_HOST");
  if (argc != 2 || !emulator || !std::strchr(emulator, ':')) {
    std::fprintf(stderr, "usage: FIREBASE_STORAGE_EMULATOR_HOST=host:port %s FILE\n", argv[0]);
    return 2;
  }
  std::string host(emulator, std::strrchr(emulator, ':') - emulator);
  int port = std::atoi(std::strrchr(emulator, ':') + 1);

  firebase::AppOptions options;
  options.set_api_key("demo-api-key");
  options.set_project_id("demo-project");
  options.set_storage_bucket("demo-project.appspot.com");
  firebase::App* app = firebase::App::Create(options);

  firebase::auth::Auth* auth = firebase::auth::Auth::GetAuth(app);
  auth->UseEmulator(host, static_cast<uint32_t>(port));
  firebase::Future<firebase::auth::AuthResult> sign_in = auth->SignInAnonymously();
  if (!Succeeded(sign_in, "sign-in")) return 1;
  std::string uid = sign_in.result()->user.uid();
  std::printf("signed in as %s\n", uid.c_str());

  // The Storage of the same App sends the signed-in user's ID token with every request.
  firebase::storage::Storage* storage = firebase::storage::Storage::GetInstance(app);
  storage->UseEmulator(host, port);
  std::string local(argv[1]);
  std::string name = local.substr(local.find_last_of('/') + 1);
  firebase::storage::StorageReference ref = storage->GetReference("users").Child(uid).Child(name);

  firebase::storage::Metadata metadata;
  metadata.set_content_type("application/octet-stream");
  (*metadata.custom_metadata())["uploaded-by"] = "examples/cpp/upload.cc";
  ProgressPrinter progress;
  firebase::storage::Controller controller;
  firebase::Future<firebase::storage::Metadata> upload = ref.PutFile(local.c_str(), metadata, &progress, &controller);
  // Resume once paused (the main thread polls here as the SDK's guides do; Wait() ends it).
  while (upload.status() == firebase::kFutureStatusPending && !progress.paused()) upload.Wait(20);
  if (progress.paused() && controller.Resume()) std::printf("resumed\n");
  if (!Succeeded(upload, "upload")) return 1;
  const firebase::storage::Metadata* stored = upload.result();
  std::printf("\nuploaded %lld bytes to %s\n", static_cast<long long>(stored->size_bytes()), stored->path());

  firebase::Future<firebase::storage::Metadata> read = ref.GetMetadata();
  if (!Succeeded(read, "metadata")) return 1;
  std::printf("content type %s, md5 %s, uploaded-by %s\n", read.result()->content_type(), read.result()->md5_hash(),
              read.result()->custom_metadata()->at("uploaded-by").c_str());

  firebase::Future<firebase::storage::StorageListResult> list = ref.GetParent().List(100);
  if (!Succeeded(list, "list")) return 1;
  for (const auto& item : list.result()->items()) {
    firebase::storage::StorageReference entry = item;
    std::printf("  %s\n", entry.full_path().c_str());
  }

  firebase::Future<std::string> url = ref.GetDownloadUrl();
  if (!Succeeded(url, "download URL")) return 1;
  std::printf("download URL: %s\n", url.result()->c_str());
  // As the SDK: the App last (deleting it first would only invalidate the others).
  delete storage;
  delete auth;
  delete app;
  return 0;
}
