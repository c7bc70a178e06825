package fbstorage

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"sort"
	"time"
)

// Metadata is an object's metadata, copied out of the library's handle. Absent numbers are
// -1, absent times zero.
type Metadata struct {
	Bucket, FullPath, Name                        string
	Size, Generation, Metageneration              int64
	ContentType, CacheControl, ContentDisposition string
	ContentEncoding, ContentLanguage              string
	MD5Hash, CRC32C                               string
	TimeCreated, Updated                          time.Time
	Custom                                        map[string]string
}

func timeFromMillis(ms C.int64_t) time.Time {
	if int64(ms) == int64(C.INT64_MIN) {
		return time.Time{}
	}
	return time.UnixMilli(int64(ms)).UTC()
}

// copyMetadata copies a handle (owned or borrowed).
func copyMetadata(m *C.fbs_metadata) *Metadata {
	custom := map[string]string{}
	for i := C.size_t(0); i < C.fbs_metadata_custom_count(m); i++ {
		key := C.fbs_metadata_custom_key_at(m, i)
		// Keys marked for deletion have no value: they are not part of the object's metadata.
		if value := C.fbs_metadata_custom(m, key); value != nil {
			custom[C.GoString(key)] = C.GoString(value)
		}
	}
	return &Metadata{
		Bucket: goString(C.fbs_metadata_bucket(m)), FullPath: goString(C.fbs_metadata_full_path(m)),
		Name: goString(C.fbs_metadata_name(m)), Size: int64(C.fbs_metadata_size(m)),
		Generation: int64(C.fbs_metadata_generation(m)), Metageneration: int64(C.fbs_metadata_metageneration(m)),
		ContentType: goString(C.fbs_metadata_content_type(m)), CacheControl: goString(C.fbs_metadata_cache_control(m)),
		ContentDisposition: goString(C.fbs_metadata_content_disposition(m)),
		ContentEncoding:    goString(C.fbs_metadata_content_encoding(m)),
		ContentLanguage:    goString(C.fbs_metadata_content_language(m)),
		MD5Hash:            goString(C.fbs_metadata_md5_hash(m)), CRC32C: goString(C.fbs_metadata_crc32c(m)),
		TimeCreated: timeFromMillis(C.fbs_metadata_time_created_ms(m)), Updated: timeFromMillis(C.fbs_metadata_updated_ms(m)),
		Custom: custom,
	}
}

// MetadataChanges are the writable fields to send with an upload or a metadata update. A nil
// field is not sent (an update keeps it); a pointer to "" deletes the field on update. Custom
// keys are merged key by key; a key in DeleteCustom is deleted; ClearCustom deletes every key
// first.
type MetadataChanges struct {
	ContentType, CacheControl, ContentDisposition, ContentEncoding, ContentLanguage *string
	Custom                                                                          map[string]string
	DeleteCustom                                                                    []string
	ClearCustom                                                                     bool
}

// String returns a pointer to s, for MetadataChanges fields.
func String(s string) *string {
	return &s
}

// toC builds a library handle holding the changes; nil for nil changes. Release with
// C.fbs_metadata_free.
func (changes *MetadataChanges) toC() (*C.fbs_metadata, error) {
	if changes == nil {
		return nil, nil
	}
	var m *C.fbs_metadata
	if err := call(func() C.int { return C.fbs_metadata_new(&m) }); err != nil {
		return nil, err
	}
	setters := []struct {
		value *string
		set   func(*C.fbs_metadata, *C.char) C.int
	}{
		{changes.ContentType, func(m *C.fbs_metadata, v *C.char) C.int { return C.fbs_metadata_set_content_type(m, v) }},
		{changes.CacheControl, func(m *C.fbs_metadata, v *C.char) C.int { return C.fbs_metadata_set_cache_control(m, v) }},
		{changes.ContentDisposition, func(m *C.fbs_metadata, v *C.char) C.int { return C.fbs_metadata_set_content_disposition(m, v) }},
		{changes.ContentEncoding, func(m *C.fbs_metadata, v *C.char) C.int { return C.fbs_metadata_set_content_encoding(m, v) }},
		{changes.ContentLanguage, func(m *C.fbs_metadata, v *C.char) C.int { return C.fbs_metadata_set_content_language(m, v) }},
	}
	fail := func(err error) (*C.fbs_metadata, error) {
		C.fbs_metadata_free(m)
		return nil, err
	}
	for _, setter := range setters {
		if setter.value == nil {
			continue
		}
		value := cStringOrNil(*setter.value)
		err := call(func() C.int { return setter.set(m, value) })
		free(value)
		if err != nil {
			return fail(err)
		}
	}
	if changes.ClearCustom {
		C.fbs_metadata_clear_custom(m)
	}
	keys := make([]string, 0, len(changes.Custom))
	for key := range changes.Custom {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	setCustom := func(key string, value *string) error {
		k, v := cString(key), (*C.char)(nil)
		if value != nil {
			v = cString(*value)
		}
		defer free(k)
		defer free(v)
		return call(func() C.int { return C.fbs_metadata_set_custom(m, k, v) })
	}
	for _, key := range keys {
		if err := setCustom(key, String(changes.Custom[key])); err != nil {
			return fail(err)
		}
	}
	for _, key := range changes.DeleteCustom {
		if err := setCustom(key, nil); err != nil {
			return fail(err)
		}
	}
	return m, nil
}
