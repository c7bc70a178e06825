// firebase/storage/list_result.h — one page of StorageReference::List.
#ifndef FIREBASE_STORAGE_LIST_RESULT_H_
#define FIREBASE_STORAGE_LIST_RESULT_H_

#include <memory>
#include <string>
#include <vector>

#include "firebase/internal/common.h"

namespace firebase {
namespace storage {

namespace internal {
class StorageListResultInternal;
}  // namespace internal

class StorageReference;

class StorageListResult {
 public:
  // An invalid result.
  StorageListResult();
  ~StorageListResult();
  StorageListResult(const StorageListResult& other);
  StorageListResult& operator=(const StorageListResult& other);
  StorageListResult(StorageListResult&& other);
  StorageListResult& operator=(StorageListResult&& other);

  // Folders and objects directly below the listed reference, in the server's order.
  const std::vector<StorageReference>& prefixes() const;
  const std::vector<StorageReference>& items() const;
  // "" on the last page.
  const std::string& next_page_token() const;
  // False for a default one, and once the Storage listed (or its App) was deleted.
  bool is_valid() const;

  // fbstorage: a result made from a listing.
  explicit StorageListResult(std::shared_ptr<const internal::StorageListResultInternal> internal);

 private:
  std::shared_ptr<const internal::StorageListResultInternal> internal_;
};

}  // namespace storage
}  // namespace firebase

#endif  // FIREBASE_STORAGE_LIST_RESULT_H_
