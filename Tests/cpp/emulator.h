// emulator.h — the bundled emulator as a child process for the C++ tests, and its control API.
#ifndef FBSTORAGE_TESTS_CPP_EMULATOR_H_
#define FBSTORAGE_TESTS_CPP_EMULATOR_H_

#include <sys/types.h>

#include <string>
#include <vector>

// `python -m fbstorage.emulator --host 127.0.0.1 --port 0 --flavor F [extra...]` (FBS_PYTHON,
// PYTHONPATH from the environment), started by the constructor (it throws when no READY line comes within
// 30 s) and stopped by the destructor. Its Auth routes are served on the same port.
class Emulator {
 public:
  explicit Emulator(std::string flavor, const std::vector<std::string>& extra = {});
  ~Emulator();
  Emulator(const Emulator&) = delete;
  Emulator& operator=(const Emulator&) = delete;

  const std::string& flavor() const { return flavor_; }
  const std::string& host() const { return host_; }
  int port() const { return port_; }
  const std::string& base_url() const { return base_url_; }

  // The control API (docs/emulator.md); each throws std::runtime_error on an unexpected status.
  void Reset() const;
  void SetRules(const std::string& rules) const;
  void AddFault(const std::string& json) const;
  // The object's bytes as stored, with no rules.
  std::string ObjectBytes(const std::string& bucket, const std::string& path) const;
  // The request log as JSON text.
  std::string RequestsJson() const;
  // Any request (admin): the status; body_out receives the answer.
  long Request(const std::string& method, const std::string& path, const std::string& body,
               std::string* body_out = nullptr) const;

 private:
  void Stop();
  std::string flavor_, host_, base_url_, log_path_;
  int port_ = 0;
  pid_t pid_ = -1;
};

#endif  // FBSTORAGE_TESTS_CPP_EMULATOR_H_
