// metadata.cc — firebase::storage::Metadata as values read from, and sent as, fbstorage metadata.
#include "firebase/storage/metadata.h"

#include "storage_internal.h"

namespace firebase {
namespace storage {
namespace internal {

MetadataInternal::MetadataInternal(std::shared_ptr<StorageInternal> owner, const fbstorage::MetadataView& view)
    : owner(std::move(owner)),
      bucket(view.bucket().value_or("")),
      name(view.name().value_or("")),
      path(view.full_path().value_or("")),
      md5_hash(view.md5_hash().value_or("")),
      creation_time(view.time_created_ms().value_or(0)),
      updated_time(view.updated_ms().value_or(0)),
      generation(view.generation().value_or(0)),
      metadata_generation(view.metageneration().value_or(0)),
      size_bytes(view.size().value_or(0)),
      custom_metadata(view.custom_metadata()) {
  fields_[kCacheControl] = view.cache_control();
  fields_[kContentDisposition] = view.content_disposition();
  fields_[kContentEncoding] = view.content_encoding();
  fields_[kContentLanguage] = view.content_language();
  fields_[kContentType] = view.content_type();
  for (const auto& entry : custom_metadata) server_custom_keys_.insert(entry.first);
}

void MetadataInternal::Set(Field field, const char* value) {
  fields_[field] = value ? std::optional<std::string>(value) : std::nullopt;
  set_fields_.insert(field);
}

const char* MetadataInternal::Get(Field field) const { return fields_[field] ? fields_[field]->c_str() : ""; }

fbstorage::Metadata MetadataInternal::ToChanges() const {
  fbstorage::Metadata changes;
  using Setter = fbstorage::Metadata& (fbstorage::Metadata::*)(std::optional<std::string_view>);
  static const Setter setters[] = {
      &fbstorage::Metadata::set_cache_control, &fbstorage::Metadata::set_content_disposition,
      &fbstorage::Metadata::set_content_encoding, &fbstorage::Metadata::set_content_language,
      &fbstorage::Metadata::set_content_type};
  for (Field field : set_fields_) {
    const auto& value = fields_[field];
    (changes.*setters[field])(value ? std::optional<std::string_view>(*value) : std::nullopt);
  }
  for (const auto& entry : custom_metadata) changes.set_custom(entry.first, entry.second);
  for (const auto& key : server_custom_keys_)
    if (!custom_metadata.count(key)) changes.set_custom(key, std::nullopt);
  return changes;
}

}  // namespace internal

using internal::MetadataInternal;

Metadata::Metadata() : internal_(new MetadataInternal) {}
Metadata::Metadata(MetadataInternal* internal) : internal_(internal) {}
Metadata::Metadata(const Metadata& other) : internal_(new MetadataInternal(*other.internal_)) {}
Metadata& Metadata::operator=(const Metadata& other) {
  if (this != &other) *internal_ = *other.internal_;
  return *this;
}
Metadata::Metadata(Metadata&& other) : internal_(other.internal_) { other.internal_ = new MetadataInternal; }
Metadata& Metadata::operator=(Metadata&& other) {
  std::swap(internal_, other.internal_);
  return *this;
}
Metadata::~Metadata() { delete internal_; }

const char* Metadata::bucket() const { return internal_->bucket.c_str(); }
void Metadata::set_cache_control(const char* v) { internal_->Set(MetadataInternal::kCacheControl, v); }
const char* Metadata::cache_control() const { return internal_->Get(MetadataInternal::kCacheControl); }
void Metadata::set_content_disposition(const char* v) { internal_->Set(MetadataInternal::kContentDisposition, v); }
const char* Metadata::content_disposition() const { return internal_->Get(MetadataInternal::kContentDisposition); }
void Metadata::set_content_encoding(const char* v) { internal_->Set(MetadataInternal::kContentEncoding, v); }
const char* Metadata::content_encoding() const { return internal_->Get(MetadataInternal::kContentEncoding); }
void Metadata::set_content_language(const char* v) { internal_->Set(MetadataInternal::kContentLanguage, v); }
const char* Metadata::content_language() const { return internal_->Get(MetadataInternal::kContentLanguage); }
void Metadata::set_content_type(const char* v) { internal_->Set(MetadataInternal::kContentType, v); }
const char* Metadata::content_type() const { return internal_->Get(MetadataInternal::kContentType); }
int64_t Metadata::creation_time() const { return internal_->creation_time; }
std::map<std::string, std::string>* Metadata::custom_metadata() const { return &internal_->custom_metadata; }
int64_t Metadata::generation() const { return internal_->generation; }
int64_t Metadata::metadata_generation() const { return internal_->metadata_generation; }
const char* Metadata::name() const { return internal_->name.c_str(); }
const char* Metadata::path() const { return internal_->path.c_str(); }
int64_t Metadata::size_bytes() const { return internal_->size_bytes; }
int64_t Metadata::updated_time() const { return internal_->updated_time; }
bool Metadata::is_valid() const { return internal_->valid && (!internal_->owner || internal_->owner->valid()); }
const char* Metadata::md5_hash() const { return internal_->md5_hash.c_str(); }

StorageReference Metadata::GetReference() const {
  if (!internal_->owner || internal_->path.empty()) return StorageReference();
  const std::string& path = internal_->path;
  return internal_->owner->Reference([&path](fbstorage::Storage& core) { return core.reference(path); });
}

}  // namespace storage
}  // namespace firebase
