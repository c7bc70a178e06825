//! Object metadata: [`Metadata`] as the server returned it, [`MetadataChanges`] to send.
use std::collections::BTreeMap;
use std::os::raw::{c_char, c_int};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::error::{check, Result};
use crate::strings::{borrowed, c_string, c_string_opt, ptr};
use crate::sys;

/// An object's metadata, copied out of the library's handle.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Metadata {
    pub bucket: Option<String>,
    pub full_path: Option<String>,
    pub name: Option<String>,
    pub size: Option<u64>,
    pub content_type: Option<String>,
    pub cache_control: Option<String>,
    pub content_disposition: Option<String>,
    pub content_encoding: Option<String>,
    pub content_language: Option<String>,
    /// Base64, as the server sent it.
    pub md5_hash: Option<String>,
    pub crc32c: Option<String>,
    pub generation: Option<i64>,
    pub metageneration: Option<i64>,
    pub time_created: Option<SystemTime>,
    pub updated: Option<SystemTime>,
    pub custom: BTreeMap<String, String>,
}

fn number(value: i64) -> Option<i64> {
    (value >= 0).then_some(value)
}

pub(crate) fn time(ms: i64) -> Option<SystemTime> {
    if ms == sys::FBS_TIME_ABSENT {
        return None;
    }
    Some(if ms >= 0 { UNIX_EPOCH + Duration::from_millis(ms as u64) } else { UNIX_EPOCH - Duration::from_millis(ms.unsigned_abs()) })
}

impl Metadata {
    /// Copies a handle's fields.
    ///
    /// # Safety
    /// `m` is a valid metadata handle (owned or borrowed) for the duration of the call.
    pub(crate) unsafe fn copy_from(m: *const sys::fbs_metadata) -> Metadata {
        unsafe {
            let mut custom = BTreeMap::new();
            for index in 0..sys::fbs_metadata_custom_count(m) {
                let key = sys::fbs_metadata_custom_key_at(m, index);
                // Keys marked for deletion have no value: they are not part of the object's metadata.
                if let (Some(k), Some(v)) = (borrowed(key), borrowed(sys::fbs_metadata_custom(m, key))) {
                    custom.insert(k, v);
                }
            }
            Metadata {
                bucket: borrowed(sys::fbs_metadata_bucket(m)),
                full_path: borrowed(sys::fbs_metadata_full_path(m)),
                name: borrowed(sys::fbs_metadata_name(m)),
                size: number(sys::fbs_metadata_size(m)).map(|s| s as u64),
                content_type: borrowed(sys::fbs_metadata_content_type(m)),
                cache_control: borrowed(sys::fbs_metadata_cache_control(m)),
                content_disposition: borrowed(sys::fbs_metadata_content_disposition(m)),
                content_encoding: borrowed(sys::fbs_metadata_content_encoding(m)),
                content_language: borrowed(sys::fbs_metadata_content_language(m)),
                md5_hash: borrowed(sys::fbs_metadata_md5_hash(m)),
                crc32c: borrowed(sys::fbs_metadata_crc32c(m)),
                generation: number(sys::fbs_metadata_generation(m)),
                metageneration: number(sys::fbs_metadata_metageneration(m)),
                time_created: time(sys::fbs_metadata_time_created_ms(m)),
                updated: time(sys::fbs_metadata_updated_ms(m)),
                custom,
            }
        }
    }

    /// Takes an owned handle: copies it, then releases it.
    pub(crate) unsafe fn take(m: *mut sys::fbs_metadata) -> Metadata {
        let metadata = unsafe { Metadata::copy_from(m) };
        unsafe { sys::fbs_metadata_free(m) };
        metadata
    }
}

/// A change of one field: set it, or delete it on the server.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Change {
    Set(String),
    Delete,
}

/// The writable string fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    ContentType,
    CacheControl,
    ContentDisposition,
    ContentEncoding,
    ContentLanguage,
}

impl Field {
    fn setter(self) -> unsafe extern "C" fn(*mut sys::fbs_metadata, *const c_char) -> c_int {
        match self {
            Field::ContentType => sys::fbs_metadata_set_content_type,
            Field::CacheControl => sys::fbs_metadata_set_cache_control,
            Field::ContentDisposition => sys::fbs_metadata_set_content_disposition,
            Field::ContentEncoding => sys::fbs_metadata_set_content_encoding,
            Field::ContentLanguage => sys::fbs_metadata_set_content_language,
        }
    }
}

/// The writable fields to send with an upload or a metadata update. Fields left alone are not
/// sent (an update keeps them as they are); deleted fields are sent as null.
///
/// ```
/// let changes = fbstorage::MetadataChanges::new()
///     .content_type("text/plain")
///     .custom("owner", "docs")
///     .delete_cache_control();
/// # let _ = changes;
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MetadataChanges {
    fields: Vec<(Field, Change)>,
    clear_custom: bool,
    custom: Vec<(String, Option<String>)>,
}

macro_rules! field {
    ($set:ident, $delete:ident, $field:ident, $name:literal) => {
        #[doc = concat!("Sets `", $name, "`.")]
        pub fn $set(self, value: impl Into<String>) -> Self { self.with(Field::$field, Change::Set(value.into())) }
        #[doc = concat!("Deletes `", $name, "` on update.")]
        pub fn $delete(self) -> Self { self.with(Field::$field, Change::Delete) }
    };
}

impl MetadataChanges {
    pub fn new() -> Self {
        Self::default()
    }

    fn with(mut self, field: Field, change: Change) -> Self {
        self.fields.retain(|(f, _)| *f != field);
        self.fields.push((field, change));
        self
    }

    field!(content_type, delete_content_type, ContentType, "contentType");
    field!(cache_control, delete_cache_control, CacheControl, "cacheControl");
    field!(content_disposition, delete_content_disposition, ContentDisposition, "contentDisposition");
    field!(content_encoding, delete_content_encoding, ContentEncoding, "contentEncoding");
    field!(content_language, delete_content_language, ContentLanguage, "contentLanguage");

    /// Sets one custom metadata key (merged key by key on update).
    pub fn custom(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.custom.push((key.into(), Some(value.into())));
        self
    }

    /// Deletes one custom metadata key on update.
    pub fn delete_custom(mut self, key: impl Into<String>) -> Self {
        self.custom.push((key.into(), None));
        self
    }

    /// Deletes every custom key on update (keys set on these changes are sent after it).
    pub fn clear_custom(mut self) -> Self {
        self.clear_custom = true;
        self.custom.clear();
        self
    }

    /// A library handle holding these changes.
    pub(crate) fn to_raw(&self) -> Result<RawMetadata> {
        let mut raw = std::ptr::null_mut();
        check(unsafe { sys::fbs_metadata_new(&mut raw) })?;
        let handle = RawMetadata(raw);
        for (field, change) in &self.fields {
            let value = c_string_opt(match change { Change::Set(v) => Some(v.as_str()), Change::Delete => None })?;
            check(unsafe { field.setter()(raw, ptr(&value)) })?;
        }
        if self.clear_custom {
            check(unsafe { sys::fbs_metadata_clear_custom(raw) })?;
        }
        for (key, value) in &self.custom {
            let (key, value) = (c_string(key)?, c_string_opt(value.as_deref())?);
            check(unsafe { sys::fbs_metadata_set_custom(raw, key.as_ptr(), ptr(&value)) })?;
        }
        Ok(handle)
    }
}

/// An owned `fbs_metadata` handle, released on drop.
pub(crate) struct RawMetadata(pub(crate) *mut sys::fbs_metadata);

impl Drop for RawMetadata {
    fn drop(&mut self) {
        unsafe { sys::fbs_metadata_free(self.0) }
    }
}

/// The handle pointer of optional changes (NULL for none), with the handle that keeps it alive.
pub(crate) fn raw_changes(changes: Option<&MetadataChanges>) -> Result<(Option<RawMetadata>, *const sys::fbs_metadata)> {
    let raw = changes.map(MetadataChanges::to_raw).transpose()?;
    let pointer = raw.as_ref().map_or(std::ptr::null(), |m| m.0 as *const _);
    Ok((raw, pointer))
}
