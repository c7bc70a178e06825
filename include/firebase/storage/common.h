// firebase/storage/common.h — Cloud Storage error codes, as the Firebase C++ SDK declares them.
#ifndef FIREBASE_STORAGE_COMMON_H_
#define FIREBASE_STORAGE_COMMON_H_

namespace firebase {
namespace storage {

// The error of a storage Future (Future::error()). fbstorage codes with no SDK equivalent
// (invalid argument, bad path, bucket mismatch) are kErrorUnknown; error_message() says which.
enum Error {
  kErrorNone = 0,
  kErrorUnknown,
  kErrorObjectNotFound,
  kErrorBucketNotFound,
  kErrorProjectNotFound,
  kErrorQuotaExceeded,
  kErrorUnauthenticated,
  kErrorUnauthorized,
  kErrorRetryLimitExceeded,
  kErrorNonMatchingChecksum,
  kErrorDownloadSizeExceeded,
  kErrorCancelled,
};

// A static description of an error code.
const char* GetErrorMessage(Error error);

}  // namespace storage
}  // namespace firebase

#endif  // FIREBASE_STORAGE_COMMON_H_
