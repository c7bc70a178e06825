// list_result.cc — firebase::storage::StorageListResult: an immutable page, shared by copies.
#include "firebase/storage/list_result.h"

#include "storage_internal.h"

namespace firebase {
namespace storage {

namespace {
const internal::StorageListResultInternal& Empty() {
  static const internal::StorageListResultInternal empty;
  return empty;
}
}  // namespace

StorageListResult::StorageListResult() {}
StorageListResult::StorageListResult(std::shared_ptr<const internal::StorageListResultInternal> internal)
    : internal_(std::move(internal)) {}
StorageListResult::~StorageListResult() {}
StorageListResult::StorageListResult(const StorageListResult& other) = default;
StorageListResult& StorageListResult::operator=(const StorageListResult& other) = default;
StorageListResult::StorageListResult(StorageListResult&& other) = default;
StorageListResult& StorageListResult::operator=(StorageListResult&& other) = default;

const std::vector<StorageReference>& StorageListResult::prefixes() const { return (internal_ ? *internal_ : Empty()).prefixes; }
const std::vector<StorageReference>& StorageListResult::items() const { return (internal_ ? *internal_ : Empty()).items; }
const std::string& StorageListResult::next_page_token() const { return (internal_ ? *internal_ : Empty()).next_page_token; }
bool StorageListResult::is_valid() const { return internal_ && (!internal_->owner || internal_->owner->valid()); }

}  // namespace storage
}  // namespace firebase
