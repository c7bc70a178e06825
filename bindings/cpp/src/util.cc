// util.cc — firebase::ModuleInitializer: the initializers run in order, at once (see util.h).
#include "firebase/util.h"

#include <string>

#include "internal.h"

namespace firebase {

struct ModuleInitializerData {
  internal::LastResult<void> last;
};

ModuleInitializer::ModuleInitializer() : data_(new ModuleInitializerData) {}
ModuleInitializer::~ModuleInitializer() { delete data_; }

Future<void> ModuleInitializer::Initialize(App* app, void* context, InitializerFn init_fn) {
  return Initialize(app, context, &init_fn, 1);
}

Future<void> ModuleInitializer::Initialize(App* app, void* context, const InitializerFn* init_fns,
                                           size_t init_fns_count) {
  internal::Promise<void> promise;
  size_t done = 0;
  if (app && init_fns)
    while (done < init_fns_count && init_fns[done] && init_fns[done](app, context) == kInitResultSuccess) done++;
  if (done == init_fns_count) {
    promise.Succeed();
  } else {
    std::string reason = !app ? "app is null"
                         : !init_fns ? "init_fns is null"
                         : !init_fns[done] ? "initializer " + std::to_string(done) + " is null"
                                           : "initializer " + std::to_string(done) + " failed";
    promise.Fail(static_cast<int>(init_fns_count - done), "Unable to initialize: " + reason + ".");
  }
  return data_->last.set(promise.future());
}

Future<void> ModuleInitializer::InitializeLastResult() { return data_->last.get(); }

}  // namespace firebase
