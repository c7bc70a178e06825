// fixtures.cc — see fixtures.h; main() runs the suite with both emulators started once.
#include "fixtures.h"

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>

namespace {
std::map<std::string, std::unique_ptr<Emulator>>& Emulators() {
  static std::map<std::string, std::unique_ptr<Emulator>> emulators;
  return emulators;
}
int app_serial = 0;
}  // namespace

std::vector<OobCode> PendingOobCodes(const Emulator& emulator, const std::string& request_type, const std::string& email) {
  std::string body;
  EXPECT_EQ(emulator.Request("GET", "/emulator/v1/projects/demo-project/oobCodes", "", &body), 200) << body;
  std::vector<OobCode> codes;
  const nlohmann::json pending = nlohmann::json::parse(body);
  for (const auto& code : pending.at("oobCodes"))
    if (code.at("requestType") == request_type && code.at("email") == email)
      codes.push_back({code.at("oobCode").get<std::string>(), code.at("oobLink").get<std::string>()});
  return codes;
}

const Emulator& EmulatorFor(const std::string& flavor) {
  auto& emulator = Emulators()[flavor];
  if (!emulator) emulator = std::make_unique<Emulator>(flavor);
  return *emulator;
}

void FlavorTest::SetUp() {
  emulator().Reset();
  firebase::AppOptions options;
  options.set_api_key("test-api-key");
  options.set_project_id("demo-project");
  options.set_app_id("1:1:web:1");
  options.set_storage_bucket(kBucket);
  std::string name = "app-" + std::to_string(++app_serial);
  app = firebase::App::Create(options, name.c_str());
  ASSERT_NE(app, nullptr);
  storage = firebase::storage::Storage::GetInstance(app);
  ASSERT_NE(storage, nullptr);
  storage->UseEmulator(emulator().host(), emulator().port());
}

void FlavorTest::TearDown() {
  delete storage;
  delete app;
}

void FlavorAuthTest::SetUp() {
  FlavorTest::SetUp();
  auth = firebase::auth::Auth::GetAuth(app);
  ASSERT_NE(auth, nullptr);
  auth->UseEmulator(emulator().host(), static_cast<uint32_t>(emulator().port()));
}

void FlavorAuthTest::TearDown() {
  delete auth;
  FlavorTest::TearDown();
}

std::string RandomBytes(size_t n, unsigned seed) {
  std::mt19937 generator(seed);
  std::string bytes(n, '\0');
  for (auto& byte : bytes) byte = static_cast<char>(generator());
  return bytes;
}

TempFiles::~TempFiles() {
  for (auto& path : paths_) unlink(path.c_str());
}

std::string TempFiles::Make(const std::string& bytes) {
  char path[] = "/tmp/fbstorage-cpp-test-XXXXXX";
  int fd = mkstemp(path);
  if (fd >= 0) close(fd);
  std::ofstream(path, std::ios::binary) << bytes;
  paths_.push_back(path);
  return path;
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // The sessions Auths keep between runs (XDG_CONFIG_HOME/fbstorage-cpp) are this run's own.
  char config[] = "/tmp/fbstorage-cpp-config-XXXXXX";
  if (!mkdtemp(config)) {
    std::perror("mkdtemp");
    return 1;
  }
  setenv("XDG_CONFIG_HOME", config, 1);
  int status = RUN_ALL_TESTS();
  std::filesystem::remove_all(config);
  Emulators().clear();
  // Every App, Storage, Auth and fbstorage object of the tests is gone: so must their handles be.
  if (long live = LiveHandles()) {
    std::fprintf(stderr, "FAIL %ld library handles or strings were never released\n", live);
    return 1;
  }
  std::printf("ok   every library handle and string the C++ layers took was released\n");
  return status;
}
