// test_app_check.cc — firebase::app_check against emulators of both flavors that enforce App Check
// (tokens living 3 s): the debug provider, a custom provider answering from a thread of its own,
// limited-use tokens, listeners, each refusal with its error, the App-deletion lifetime rules, and
// the C++ App Check guides' code (app_check_guides.cc).
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <ctime>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "firebase/app_check.h"
#include "fixtures.h"

using firebase::Future;
using firebase::app_check::AppCheck;
using firebase::app_check::AppCheckProvider;
using firebase::app_check::AppCheckProviderFactory;
using firebase::app_check::AppCheckToken;
using firebase::app_check::DebugAppCheckProviderFactory;

// The guides' code (app_check_guides.cc).
void InstallGuideDebugProvider();
firebase::app_check::AppCheckProviderFactory* GuideCustomProviderFactory();

namespace {

constexpr const char* kProject = "demo-project";
constexpr const char* kDebugSecret = "cpp-ci-debug-secret";

const Emulator& EnforcingEmulator(const std::string& flavor) {
  static std::map<std::string, std::unique_ptr<Emulator>> emulators;
  auto& emulator = emulators[flavor];
  if (!emulator)
    emulator = std::make_unique<Emulator>(flavor, std::vector<std::string>{
        "--project", kProject, "--app-check", "enforce", "--app-check-debug-token", kDebugSecret,
        "--app-check-token-ttl", "3"});
  return *emulator;
}

int64_t NowMs() { return static_cast<int64_t>(std::time(nullptr)) * 1000; }

// The string value of key in a flat JSON object ("" when absent).
std::string JsonString(const std::string& json, const std::string& key) {
  size_t at = json.find("\"" + key + "\"");
  if (at == std::string::npos) return "";
  size_t open = json.find('"', json.find(':', at) + 1), close = json.find('"', open + 1);
  return json.substr(open + 1, close - open - 1);
}

// A custom provider whose "backend" is the emulator's token mint, asked from a thread of its own;
// it answers from that thread, after GetToken has returned.
class BackendProvider : public AppCheckProvider {
 public:
  explicit BackendProvider(const Emulator& emulator) : emulator_(emulator) {}
  ~BackendProvider() override {
    for (auto& thread : threads_) thread.join();
  }
  void GetToken(std::function<void(AppCheckToken, int, const std::string&)> done) override { Mint(done, false); }
  void GetLimitedUseToken(std::function<void(AppCheckToken, int, const std::string&)> done) override { Mint(done, true); }
  void FailNext() { fail_next_ = true; }
  int calls() const { return calls_; }
  int limited_calls() const { return limited_calls_; }

 private:
  void Mint(std::function<void(AppCheckToken, int, const std::string&)> done, bool limited_use) {
    ++calls_;
    if (limited_use) ++limited_calls_;
    bool fail = fail_next_.exchange(false);
    std::lock_guard<std::mutex> lock(mutex_);
    threads_.emplace_back([this, done, limited_use, fail] {
      if (fail) return done(AppCheckToken{"", 0}, firebase::app_check::kAppCheckErrorUnknown, "the backend said no");
      std::string answer;
      std::string ask = std::string(R"({"appId": "1:1:web:1", "ttlSeconds": 60, "limitedUse": )") +
                        (limited_use ? "true" : "false") + "}";
      long status = emulator_.Request("POST", "/_emulator/app-check/tokens", ask, &answer);
      if (status != 200) return done(AppCheckToken{"", 0}, firebase::app_check::kAppCheckErrorServerUnreachable, answer);
      done(AppCheckToken{JsonString(answer, "token"), NowMs() + 60000}, 0, "");
    });
  }

  const Emulator& emulator_;
  std::mutex mutex_;
  std::vector<std::thread> threads_;
  std::atomic<int> calls_{0}, limited_calls_{0};
  std::atomic<bool> fail_next_{false};
};

class BackendFactory : public AppCheckProviderFactory {
 public:
  explicit BackendFactory(const Emulator& emulator) : provider(emulator) {}
  AppCheckProvider* CreateProvider(firebase::App*) override { return &provider; }
  BackendProvider provider;
};

class CountingListener : public firebase::app_check::AppCheckListener {
 public:
  void OnAppCheckTokenChanged(const AppCheckToken& token) override {
    std::lock_guard<std::mutex> lock(mutex);
    tokens.push_back(token.token);
    told.notify_all();
  }
  // The tokens told once there are `count` of them (10 s at most: then those told so far).
  std::vector<std::string> WaitFor(size_t count) {
    std::unique_lock<std::mutex> lock(mutex);
    told.wait_for(lock, std::chrono::seconds(10), [&] { return tokens.size() >= count; });
    return tokens;
  }
  std::mutex mutex;
  std::condition_variable told;
  std::vector<std::string> tokens;
};

// An App with no factory installed yet; storages are made by the test (after installing one).
class AppCheckTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const Emulator& e = emulator();
    e.Reset();
    setenv("FIREBASE_APP_CHECK_EMULATOR_HOST", (e.host() + ":" + std::to_string(e.port())).c_str(), 1);
    firebase::AppOptions options;
    options.set_api_key("test-api-key");
    options.set_project_id(kProject);
    options.set_app_id("1:1:web:1");
    options.set_storage_bucket(kBucket);
    static int serial = 0;
    app = firebase::App::Create(options, ("app-check-" + std::to_string(++serial)).c_str());
    ASSERT_NE(app, nullptr);
  }
  void TearDown() override {
    delete storage;
    delete app_check;
    delete app;
    AppCheck::SetAppCheckProviderFactory(nullptr);
    unsetenv("FIREBASE_APP_CHECK_EMULATOR_HOST");
  }
  const Emulator& emulator() const { return EnforcingEmulator(GetParam()); }
  firebase::storage::Storage* MakeStorage() {
    storage = firebase::storage::Storage::GetInstance(app);
    storage->UseEmulator(emulator().host(), emulator().port());
    storage->set_max_operation_retry_time(10);
    storage->set_max_upload_retry_time(10);
    return storage;
  }
  // Uploads bytes and reads them back: the first failing Future's error, or 0.
  int RoundTrip(const std::string& path, const std::string& bytes, std::string* message = nullptr) {
    firebase::storage::StorageReference ref = storage->GetReference(path.c_str());
    auto put = ref.PutBytes(bytes.data(), bytes.size());
    Completed(put);
    if (put.error() != 0) {
      if (message) *message = put.error_message();
      return put.error();
    }
    std::vector<char> back(bytes.size() + 1);
    auto get = ref.GetBytes(back.data(), back.size());
    Completed(get);
    if (get.error() != 0) return get.error();
    EXPECT_EQ(std::string(back.data(), *get.result()), bytes);
    return 0;
  }
  size_t Verdicts(const std::string& verdict) const {
    std::string log = emulator().RequestsJson(), needle = "\"app_check\": \"" + verdict + "\"";
    size_t n = 0;
    for (size_t at = log.find(needle); at != std::string::npos; at = log.find(needle, at + 1)) n++;
    return n;
  }

  firebase::App* app = nullptr;
  firebase::storage::Storage* storage = nullptr;
  AppCheck* app_check = nullptr;
};

TEST_P(AppCheckTest, DebugProviderUploadsAndDownloadsWithNoOtherCode) {
  DebugAppCheckProviderFactory::GetInstance()->SetDebugToken(kDebugSecret);
  AppCheck::SetAppCheckProviderFactory(DebugAppCheckProviderFactory::GetInstance());
  MakeStorage();  // the App's AppCheck is made and attached by Storage::GetInstance
  EXPECT_EQ(RoundTrip("ac/debug.bin", RandomBytes(1000, 1)), 0);
  EXPECT_GE(Verdicts("valid"), 2u);
  EXPECT_EQ(Verdicts("missing"), 0u);
  app_check = AppCheck::GetInstance(app);
  ASSERT_NE(app_check, nullptr);
  EXPECT_EQ(app_check->app(), app);
  const AppCheckToken& token = Succeeded(app_check->GetAppCheckToken(true));
  EXPECT_EQ(std::count(token.token.begin(), token.token.end(), '.'), 2) << "a JWT";
  EXPECT_GT(token.expire_time_millis, NowMs());
  EXPECT_EQ(app_check->GetAppCheckTokenLastResult().result()->token, token.token);
}

TEST_P(AppCheckTest, CustomProviderAnsweringLaterServesStorageLimitedUseAndListeners) {
  BackendFactory factory(emulator());
  AppCheck::SetAppCheckProviderFactory(&factory);
  app_check = AppCheck::GetInstance(app);
  ASSERT_NE(app_check, nullptr);
  app_check->SetTokenAutoRefreshEnabled(false);  // the provider's calls counted are the requests'
  CountingListener listener;
  app_check->AddAppCheckListener(&listener);
  MakeStorage();
  EXPECT_EQ(RoundTrip("ac/custom.bin", RandomBytes(300 * 1024, 2)), 0);
  EXPECT_GE(factory.provider.calls(), 1);
  ASSERT_GE(listener.WaitFor(1).size(), 1u);
  // A limited-use token: asked of the provider's GetLimitedUseToken, not told to listeners.
  const AppCheckToken& limited = Succeeded(app_check->GetLimitedUseAppCheckToken());
  EXPECT_FALSE(limited.token.empty());
  EXPECT_EQ(factory.provider.limited_calls(), 1);
  std::vector<std::string> told = listener.WaitFor(1);
  EXPECT_EQ(std::count(told.begin(), told.end(), limited.token), 0);
  // A forced refresh asks the provider again.
  int before = factory.provider.calls();
  app_check->RemoveAppCheckListener(&listener);
  EXPECT_EQ(Succeeded(app_check->GetAppCheckToken(true)).token.empty(), false);
  EXPECT_EQ(factory.provider.calls(), before + 1);
  // A provider's failure: the Future says what it said.
  factory.provider.FailNext();
  Future<AppCheckToken> failed = app_check->GetAppCheckToken(true);
  Completed(failed);
  EXPECT_EQ(failed.error(), firebase::app_check::kAppCheckErrorUnknown);
  EXPECT_NE(std::string(failed.error_message()).find("the backend said no"), std::string::npos) << failed.error_message();
}

TEST_P(AppCheckTest, DebugProviderTokensReachListeners) {
  DebugAppCheckProviderFactory::GetInstance()->SetDebugToken(kDebugSecret);
  AppCheck::SetAppCheckProviderFactory(DebugAppCheckProviderFactory::GetInstance());
  app_check = AppCheck::GetInstance(app);
  ASSERT_NE(app_check, nullptr);
  app_check->SetTokenAutoRefreshEnabled(false);  // the renewals told are the requests'
  CountingListener listener, other;
  app_check->AddAppCheckListener(&listener);
  app_check->AddAppCheckListener(&listener);  // a no-op: told once per token
  app_check->AddAppCheckListener(&other);
  const std::string first = Succeeded(app_check->GetAppCheckToken(false)).token;
  EXPECT_EQ(listener.WaitFor(1), std::vector<std::string>{first});
  // Each renewal is told, the limited-use token never: the forced renewal's comes next.
  const std::string limited = Succeeded(app_check->GetLimitedUseAppCheckToken()).token;
  const std::string forced = Succeeded(app_check->GetAppCheckToken(true)).token;
  EXPECT_NE(limited, forced);
  EXPECT_EQ(listener.WaitFor(2), (std::vector<std::string>{first, forced}));
  // Removed: never told again, while the other listener hears the next renewal.
  app_check->RemoveAppCheckListener(&listener);
  const std::string third = Succeeded(app_check->GetAppCheckToken(true)).token;
  EXPECT_EQ(other.WaitFor(3), (std::vector<std::string>{first, forced, third}));
  EXPECT_EQ(listener.WaitFor(2).size(), 2u);
  app_check->RemoveAppCheckListener(&other);
}

TEST_P(AppCheckTest, AutoRefreshRenewsTheTokenWithNoRequest) {
  DebugAppCheckProviderFactory::GetInstance()->SetDebugToken(kDebugSecret);
  AppCheck::SetAppCheckProviderFactory(DebugAppCheckProviderFactory::GetInstance());
  app_check = AppCheck::GetInstance(app);
  ASSERT_NE(app_check, nullptr);
  CountingListener listener;
  app_check->AddAppCheckListener(&listener);
  const std::string first = Succeeded(app_check->GetAppCheckToken(false)).token;
  // On by default, as the SDK's: renewed halfway through each 3 s life, with no request.
  std::vector<std::string> told = listener.WaitFor(3);
  ASSERT_GE(told.size(), 3u);
  EXPECT_EQ(told.front(), first);
  app_check->SetTokenAutoRefreshEnabled(false);
  app_check->RemoveAppCheckListener(&listener);
}

TEST_P(AppCheckTest, RefusedWithoutProviderWithAnAppCheckError) {
  MakeStorage();  // no factory: no AppCheck, no token
  std::string message;
  EXPECT_EQ(RoundTrip("ac/refused.bin", "x", &message), firebase::storage::kErrorUnauthenticated);
  EXPECT_NE(message.find("App Check"), std::string::npos) << message;
  // An AppCheck without a provider: still no token; its own calls say so.
  app_check = AppCheck::GetInstance(app);
  ASSERT_NE(app_check, nullptr);
  EXPECT_EQ(RoundTrip("ac/refused.bin", "x"), firebase::storage::kErrorUnauthenticated);
  Future<AppCheckToken> none = app_check->GetAppCheckToken(false);
  Completed(none);
  EXPECT_EQ(none.error(), firebase::app_check::kAppCheckErrorInvalidConfiguration);
  // A debug token the emulator does not know: the exchange refuses it.
  DebugAppCheckProviderFactory::GetInstance()->SetDebugToken("not-registered");
  AppCheck::SetAppCheckProviderFactory(DebugAppCheckProviderFactory::GetInstance());
  EXPECT_EQ(RoundTrip("ac/refused.bin", "x", &message), firebase::storage::kErrorUnknown);
  EXPECT_EQ(message.find("not-registered"), std::string::npos) << "the secret stays out of messages";
  EXPECT_EQ(Verdicts("valid"), 0u);
}

TEST_P(AppCheckTest, DeletingTheAppTearsTheAppCheckDown) {
  DebugAppCheckProviderFactory::GetInstance()->SetDebugToken(kDebugSecret);
  AppCheck::SetAppCheckProviderFactory(DebugAppCheckProviderFactory::GetInstance());
  app_check = AppCheck::GetInstance(app);
  ASSERT_NE(app_check, nullptr);
  EXPECT_EQ(AppCheck::GetInstance(app), app_check) << "one per App";
  Succeeded(app_check->GetAppCheckToken(false));
  long handles_with_app = LiveHandles();
  delete app;
  app = nullptr;
  EXPECT_LT(LiveHandles(), handles_with_app) << "the App's fbs_app_check (and its debug provider's) are freed";
  Future<AppCheckToken> after = app_check->GetAppCheckToken(false);
  Completed(after);
  EXPECT_EQ(after.error(), firebase::app_check::kAppCheckErrorInvalidConfiguration);
}

TEST_P(AppCheckTest, GuidesDebugProviderCodeServesStorage) {
  setenv("APP_CHECK_DEBUG_TOKEN", kDebugSecret, 1);  // the C++ SDK's desktop variable
  DebugAppCheckProviderFactory::GetInstance()->SetDebugToken("");
  InstallGuideDebugProvider();
  MakeStorage();
  EXPECT_EQ(RoundTrip("ac/guide-debug.bin", "guide"), 0);
  unsetenv("APP_CHECK_DEBUG_TOKEN");
}

TEST_P(AppCheckTest, GuidesCustomProviderCodeIsAskedForTokens) {
  AppCheck::SetAppCheckProviderFactory(GuideCustomProviderFactory());
  app_check = AppCheck::GetInstance(app);
  ASSERT_NE(app_check, nullptr);
  // The guide's provider answers its placeholder token at once.
  const AppCheckToken& token = Succeeded(app_check->GetAppCheckToken(true));
  EXPECT_EQ(token.token, "token-from-your-backend");
}

INSTANTIATE_TEST_SUITE_P(Flavors, AppCheckTest, FBS_BOTH_FLAVORS);

}  // namespace
