// auth_session_file.cc — where an Auth keeps its signed-in user between runs, as the desktop SDK
// keeps it in the system's secret store: $XDG_CONFIG_HOME/fbstorage-cpp/<app name>-<API key
// hash>.json (~/.config without XDG_CONFIG_HOME), written by the core (refresh token and
// profile, mode 0600, atomically; removed on sign-out). The key's hash keeps apps of the same
// name in different projects apart without putting the key in a file name.
#include <sys/stat.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "auth_internal.h"

namespace firebase {
namespace auth {
namespace internal {

namespace {

// The app name with anything but letters, digits, '.', '_' and '-' replaced by '_'.
std::string FileSafe(const std::string& name) {
  std::string safe = name;
  for (char& c : safe) {
    bool kept = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
                c == '-';
    if (!kept) c = '_';
  }
  return safe;
}

// FNV-1a (64 bits) in hex: stable across runs and builds.
std::string HexHash(const std::string& text) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char byte : text) {
    hash ^= byte;
    hash *= 0x100000001b3ULL;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016" PRIx64, hash);
  return hex;
}

// Makes `path` and its missing parents (new ones 0700); false with errno on failure.
bool MakeDirectories(const std::string& path) {
  for (size_t slash = path.find('/', 1); ; slash = path.find('/', slash + 1)) {
    std::string prefix = path.substr(0, slash);
    if (mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) return false;
    if (slash == std::string::npos) return true;
  }
}

}  // namespace

std::string SessionFilePath(const std::string& app_name, const std::string& api_key) {
  const char* config = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  std::string base;
  if (config && config[0] == '/')
    base = config;
  else if (home && home[0] == '/')
    base = std::string(home) + "/.config";
  else
    return std::string();
  std::string directory = base + "/fbstorage-cpp";
  if (!MakeDirectories(directory)) {
    firebase::internal::Log(kLogLevelWarning, "Auth: the session is not kept between runs: cannot create %s: %s",
                            directory.c_str(), std::strerror(errno));
    return std::string();
  }
  return directory + "/" + FileSafe(app_name) + "-" + HexHash(api_key) + ".json";
}

}  // namespace internal
}  // namespace auth
}  // namespace firebase
