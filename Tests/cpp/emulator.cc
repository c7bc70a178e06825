// emulator.cc — starts, stops and drives the bundled emulator (see emulator.h).
#include "emulator.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

extern char** environ;

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

size_t Append(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

}  // namespace

Emulator::Emulator(std::string flavor, const std::vector<std::string>& extra) : flavor_(std::move(flavor)) {
  const char* python = getenv("FBS_PYTHON") ? getenv("FBS_PYTHON") : "python3";
  char log_template[] = "/tmp/fbstorage-cpp-emulator-XXXXXX";
  int log_fd = mkstemp(log_template);
  if (log_fd < 0) throw std::runtime_error("mkstemp failed");
  log_path_ = log_template;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, log_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, log_fd, 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);  // stopped with its children
  std::vector<std::string> args = {python, "-m", "fbstorage.emulator", "--host", "127.0.0.1",
                                   "--port", "0", "--flavor", flavor_};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(&arg[0]);
  argv.push_back(nullptr);
  int rc = posix_spawnp(&pid_, python, &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(log_fd);
  if (rc != 0) throw std::runtime_error(std::string("cannot run ") + python);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    std::string log = ReadFile(log_path_);
    size_t ready = log.find("READY http://");
    size_t end = ready == std::string::npos ? ready : log.find('\n', ready);
    if (end != std::string::npos) {
      base_url_ = log.substr(ready + 6, end - ready - 6);
      size_t colon = base_url_.rfind(':');
      host_ = base_url_.substr(7, colon - 7);
      port_ = std::atoi(base_url_.c_str() + colon + 1);
      return;
    }
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(25));  // polls a child's log file
  }
  std::string log = ReadFile(log_path_);
  Stop();
  throw std::runtime_error("the emulator (" + flavor_ + ") did not print READY:\n" + log);
}

Emulator::~Emulator() { Stop(); }

void Emulator::Stop() {
  if (pid_ > 0) {
    kill(-pid_, SIGTERM);
    int status;
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  if (!log_path_.empty()) unlink(log_path_.c_str());
  log_path_.clear();
}

long Emulator::Request(const std::string& method, const std::string& path, const std::string& body,
                       std::string* body_out) const {
  CURL* curl = curl_easy_init();
  std::string url = base_url_ + path, answer;
  curl_slist* headers = curl_slist_append(nullptr, "Authorization: Bearer owner");
  headers = curl_slist_append(headers, "Content-Type: application/json");
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  if (method != "GET" && method != "DELETE") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, Append);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer);
  CURLcode rc = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK) throw std::runtime_error(method + " " + url + ": " + curl_easy_strerror(rc));
  if (body_out) *body_out = answer;
  return status;
}

namespace {
void Expect2xx(long status, const std::string& what) {
  if (status < 200 || status >= 300) throw std::runtime_error(what + " answered " + std::to_string(status));
}
}  // namespace

void Emulator::Reset() const { Expect2xx(Request("POST", "/_emulator/reset", "{}"), "reset"); }
void Emulator::SetRules(const std::string& rules) const { Expect2xx(Request("PUT", "/_emulator/rules", rules), "rules"); }
void Emulator::AddFault(const std::string& json) const { Expect2xx(Request("POST", "/_emulator/faults", json), "fault"); }

std::string Emulator::ObjectBytes(const std::string& bucket, const std::string& path) const {
  std::string bytes;
  Expect2xx(Request("GET", "/_emulator/objects/" + bucket + "/" + path, "", &bytes), "object " + path);
  return bytes;
}

std::string Emulator::RequestsJson() const {
  std::string json;
  Expect2xx(Request("GET", "/_emulator/requests", "", &json), "requests");
  return json;
}
