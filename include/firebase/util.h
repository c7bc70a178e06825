// firebase/util.h — firebase::ModuleInitializer, as the Firebase C++ SDK declares it
// (app/src/include/firebase/util.h): initializes Firebase modules (Auth, Storage) one after
// the other for an App.
//
// On Linux nothing is missing to fix (the SDK's retry after updating Google Play services is
// Android's), so Initialize runs the initializers at once, in order, on the calling thread,
// and returns a complete Future: error 0 when every one returned kInitResultSuccess, else the
// number of initializers that did not succeed (the failed one and those after it, which are
// not run), as the SDK defines it. A null app or null initializers fail the same way.
// Thread safety: one ModuleInitializer per thread.
#ifndef FIREBASE_UTIL_H_
#define FIREBASE_UTIL_H_

#include <stddef.h>

#include "firebase/app.h"
#include "firebase/future.h"

namespace firebase {

struct ModuleInitializerData;

class ModuleInitializer {
 public:
  // Initializes one module for app and returns its InitResult.
  typedef InitResult (*InitializerFn)(App* app, void* context);

  ModuleInitializer();
  virtual ~ModuleInitializer();

  Future<void> Initialize(App* app, void* context, const InitializerFn* init_fns, size_t init_fns_count);
  Future<void> Initialize(App* app, void* context, InitializerFn init_fn);
  // The Future of the last Initialize call (invalid before the first).
  Future<void> InitializeLastResult();

 private:
  ModuleInitializer(const ModuleInitializer&) = delete;
  ModuleInitializer& operator=(const ModuleInitializer&) = delete;

  ModuleInitializerData* data_;
};

}  // namespace firebase

#endif  // FIREBASE_UTIL_H_
