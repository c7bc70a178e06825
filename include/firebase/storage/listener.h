// firebase/storage/listener.h — progress and pause events of an upload or download.
//
// OnProgress and OnPaused run on the Storage's callback thread, one event at a time, in order.
// The caller owns the listener: it must outlive the operations it is passed to.
#ifndef FIREBASE_STORAGE_LISTENER_H_
#define FIREBASE_STORAGE_LISTENER_H_

#include "firebase/storage/controller.h"

namespace firebase {
namespace storage {

class Listener {
 public:
  Listener() {}
  virtual ~Listener() {}

  virtual void OnPaused(Controller* controller) = 0;
  virtual void OnProgress(Controller* controller) = 0;
};

}  // namespace storage
}  // namespace firebase

#endif  // FIREBASE_STORAGE_LISTENER_H_
