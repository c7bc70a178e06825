//! Strings across the boundary: &str and &Path in (copied by the library), String out.
use std::ffi::{CStr, CString};
use std::os::raw::c_char;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::error::{ErrorCode, Result, StorageError};
use crate::sys;

pub(crate) fn c_string(value: &str) -> Result<CString> {
    CString::new(value).map_err(|_| StorageError::new(ErrorCode::InvalidArgument, format!("{value:?} contains a NUL byte")))
}

pub(crate) fn c_path(path: &Path) -> Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| StorageError::new(ErrorCode::InvalidArgument, format!("{} contains a NUL byte", path.display())))
}

pub(crate) fn c_string_opt(value: Option<&str>) -> Result<Option<CString>> {
    value.map(c_string).transpose()
}

/// The pointer of an optional C string (NULL for None).
pub(crate) fn ptr(value: &Option<CString>) -> *const c_char {
    value.as_ref().map_or(std::ptr::null(), |s| s.as_ptr())
}

/// A copy of a borrowed C string; None for NULL.
///
/// # Safety
/// `p` is NULL or a valid NUL-terminated string.
pub(crate) unsafe fn borrowed(p: *const c_char) -> Option<String> {
    if p.is_null() { None } else { Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()) }
}

/// Takes a string the library returned through a `char **`, releasing it.
///
/// # Safety
/// `p` is NULL or a string owned by the caller, from the library.
pub(crate) unsafe fn owned(p: *mut c_char) -> Option<String> {
    let value = unsafe { borrowed(p) };
    unsafe { sys::fbs_string_free(p) };
    value
}
