// test_hooks.cc — defines the SDK-internal flag that the SDK's Storage integration test sets
// (firebase::storage::internal::g_retry_all_errors_for_testing: retry even "not found" until the
// deadline). It is no API of the SDK, and fbstorage has no such hook: setting it changes nothing,
// and the five *WithMaxRetryDuration tests that rely on it fail.
namespace firebase {
namespace storage {
namespace internal {
bool g_retry_all_errors_for_testing = false;
}  // namespace internal
}  // namespace storage
}  // namespace firebase
