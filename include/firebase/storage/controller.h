// firebase/storage/controller.h — pause, resume or cancel an upload or download.
//
// Pass one to PutBytes, PutFile, GetBytes or GetFile: it is then bound to that operation
// (copies share the binding). Listener callbacks receive their own Controller for the same
// operation. Thread safety: unlike the SDK ("main thread only"), every method may be called
// from any thread, callbacks included.
#ifndef FIREBASE_STORAGE_CONTROLLER_H_
#define FIREBASE_STORAGE_CONTROLLER_H_

#include <cstdint>
#include <memory>

#include "firebase/internal/common.h"
#include "firebase/storage/storage_reference.h"

namespace firebase {
namespace storage {

namespace internal {
class ControllerInternal;
}  // namespace internal

class Controller {
 public:
  Controller();
  ~Controller();
  Controller(const Controller& other);
  Controller& operator=(const Controller& other);
  Controller(Controller&& other);
  Controller& operator=(Controller&& other);

  // False when not bound to a running operation, or invalid.
  bool Pause();
  bool Resume();
  bool Cancel();

  bool is_paused() const;
  int64_t bytes_transferred() const;
  // -1 while unknown.
  int64_t total_byte_count() const;
  StorageReference GetReference() const;
  // True once bound to an operation, until its Storage (or that Storage's App) is deleted.
  bool is_valid() const;

  // fbstorage: binds a Controller to an operation.
  explicit Controller(std::shared_ptr<internal::ControllerInternal> internal);

 private:
  std::shared_ptr<internal::ControllerInternal> internal_;
};

}  // namespace storage
}  // namespace firebase

#endif  // FIREBASE_STORAGE_CONTROLLER_H_
