// controller.cc — firebase::storage::Controller over the fbstorage::Task of an operation.
#include "firebase/storage/controller.h"

#include "storage_internal.h"

namespace firebase {
namespace storage {

Controller::Controller() {}
Controller::Controller(std::shared_ptr<internal::ControllerInternal> internal) : internal_(std::move(internal)) {}
Controller::~Controller() {}
Controller::Controller(const Controller& other) = default;
Controller& Controller::operator=(const Controller& other) = default;
Controller::Controller(Controller&& other) = default;
Controller& Controller::operator=(Controller&& other) = default;

namespace {
// The bound task while it runs and its Storage is valid, else null.
std::shared_ptr<fbstorage::Task> RunningTask(const std::shared_ptr<internal::ControllerInternal>& internal) {
  if (!internal || !internal->reference.is_valid()) return nullptr;
  std::lock_guard<std::mutex> lock(internal->mutex);
  return internal->task;
}

template <class Action>
bool Control(const std::shared_ptr<internal::ControllerInternal>& internal, Action action) {
  auto task = RunningTask(internal);
  if (!task) return false;
  try {
    fbstorage::TaskStatus status = task->snapshot().status();
    if (status == fbstorage::TaskStatus::kSuccess || status == fbstorage::TaskStatus::kFailure) return false;
    return action(*task, status);
  } catch (const fbstorage::Error&) {
    return false;
  }
}
}  // namespace

bool Controller::Pause() {
  return Control(internal_, [](fbstorage::Task& task, fbstorage::TaskStatus status) {
    if (status == fbstorage::TaskStatus::kPause) return false;
    task.pause();
    return true;
  });
}

bool Controller::Resume() {
  return Control(internal_, [](fbstorage::Task& task, fbstorage::TaskStatus status) {
    if (status != fbstorage::TaskStatus::kPause) return false;
    task.resume();
    return true;
  });
}

bool Controller::Cancel() {
  return Control(internal_, [](fbstorage::Task& task, fbstorage::TaskStatus) {
    task.cancel();
    return true;
  });
}

bool Controller::is_paused() const {
  return Control(internal_, [](fbstorage::Task&, fbstorage::TaskStatus status) {
    return status == fbstorage::TaskStatus::kPause;
  });
}

int64_t Controller::bytes_transferred() const {
  if (!internal_) return 0;
  if (auto task = RunningTask(internal_)) {
    try {
      return task->snapshot().bytes_transferred();
    } catch (const fbstorage::Error&) {
    }
  }
  std::lock_guard<std::mutex> lock(internal_->mutex);
  return internal_->final_bytes;
}

int64_t Controller::total_byte_count() const {
  if (!internal_) return -1;
  if (auto task = RunningTask(internal_)) {
    try {
      return task->snapshot().total_bytes().value_or(-1);
    } catch (const fbstorage::Error&) {
    }
  }
  std::lock_guard<std::mutex> lock(internal_->mutex);
  return internal_->final_total;
}

StorageReference Controller::GetReference() const { return is_valid() ? internal_->reference : StorageReference(); }

bool Controller::is_valid() const { return internal_ && internal_->reference.is_valid(); }

}  // namespace storage
}  // namespace firebase
