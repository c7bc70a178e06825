//! [`Reference`]: a bucket and an object path, and what can be done to that object.
use std::path::Path;
use std::ptr::NonNull;

use crate::error::{check, ErrorCode, Result, StorageError};
use crate::list::{ListResult, Pages};
use crate::metadata::{raw_changes, Metadata, MetadataChanges};
use crate::strings::{borrowed, c_path, c_string, c_string_opt, owned, ptr};
use crate::sys;
use crate::stream::{ObjectReader, ObjectWriter};
use crate::task::Task;

/// A bucket and an object path. `Send + Sync`: every call is thread-safe.
///
/// The blocking operations below wait for the server (retrying until the operation deadline).
/// Uploads and file downloads return a [`Task`] at once.
///
/// ```
/// use fbstorage::{MetadataChanges, Storage};
/// # assert!(std::env::var_os("FIREBASE_STORAGE_EMULATOR_HOST").is_some(), "doctests talk to an emulator: run them with `make test-rust` or under Tests/c/with-emulator.sh");
/// let storage = Storage::new("docs-bucket")?;
/// let note = storage.reference("docs/reference/note.txt")?;
/// note.put_data(b"hello", Some(&MetadataChanges::new().content_type("text/plain")))?.wait()?;
/// assert_eq!(note.get_data(1 << 20)?, b"hello");
/// assert_eq!(note.metadata()?.content_type.as_deref(), Some("text/plain"));
/// let updated = note.update_metadata(&MetadataChanges::new().custom("reviewed", "yes"))?;
/// assert_eq!(updated.custom["reviewed"], "yes");
/// assert!(note.download_url()?.contains("token="));
/// note.delete()?;
/// assert_eq!(note.metadata().unwrap_err().code, fbstorage::ErrorCode::ObjectNotFound);
/// # Ok::<(), fbstorage::StorageError>(())
/// ```
pub struct Reference {
    raw: NonNull<sys::fbs_reference>,
}

// SAFETY: thread-safe handles (header), immutable after creation, freed only by Drop.
unsafe impl Send for Reference {}
unsafe impl Sync for Reference {}

impl Reference {
    /// # Safety
    /// `raw` is a non-NULL reference handle owned by the caller.
    pub(crate) unsafe fn from_raw(raw: *mut sys::fbs_reference) -> Reference {
        Reference { raw: NonNull::new(raw).expect("the library returned a NULL reference with FBS_OK") }
    }

    /// An owned copy of a borrowed handle.
    pub(crate) unsafe fn copy_from(raw: *const sys::fbs_reference) -> Result<Reference> {
        let mut copy = std::ptr::null_mut();
        check(unsafe { sys::fbs_reference_child(raw, c"".as_ptr(), &mut copy) })?;
        Ok(unsafe { Reference::from_raw(copy) })
    }

    pub(crate) fn raw(&self) -> *const sys::fbs_reference {
        self.raw.as_ptr()
    }

    fn derive(&self, make: impl FnOnce(*mut *mut sys::fbs_reference) -> i32) -> Result<Option<Reference>> {
        let mut out = std::ptr::null_mut();
        check(make(&mut out))?;
        Ok(NonNull::new(out).map(|raw| Reference { raw }))
    }

    /// The reference to `path` below this one.
    pub fn child(&self, path: &str) -> Result<Reference> {
        let path = c_string(path)?;
        Ok(self.derive(|out| unsafe { sys::fbs_reference_child(self.raw(), path.as_ptr(), out) })?.expect("child"))
    }

    /// The parent; None at the root.
    pub fn parent(&self) -> Result<Option<Reference>> {
        self.derive(|out| unsafe { sys::fbs_reference_parent(self.raw(), out) })
    }

    /// The root of the bucket.
    pub fn root(&self) -> Result<Reference> {
        Ok(self.derive(|out| unsafe { sys::fbs_reference_root(self.raw(), out) })?.expect("root"))
    }

    /// The last path component ("" at the root).
    pub fn name(&self) -> String {
        unsafe { borrowed(sys::fbs_reference_name(self.raw())) }.unwrap_or_default()
    }

    /// The full path ("" at the root).
    pub fn full_path(&self) -> String {
        unsafe { borrowed(sys::fbs_reference_full_path(self.raw())) }.unwrap_or_default()
    }

    pub fn bucket(&self) -> String {
        unsafe { borrowed(sys::fbs_reference_bucket(self.raw())) }.unwrap_or_default()
    }

    /// Uploads a copy of `data`, with the writable fields and custom metadata of `metadata`.
    pub fn put_data(&self, data: &[u8], metadata: Option<&MetadataChanges>) -> Result<Task> {
        let (_keep, m) = raw_changes(metadata)?;
        Task::start(|out| unsafe { sys::fbs_reference_put_data(self.raw(), data.as_ptr().cast(), data.len(), m, out) })
    }

    /// Uploads the file at `path`, streamed from disk; the content type is inferred from its
    /// extension unless `metadata` sets one.
    pub fn put_file(&self, path: &Path, metadata: Option<&MetadataChanges>) -> Result<Task> {
        let (_keep, m) = raw_changes(metadata)?;
        let path = c_path(path)?;
        Task::start(|out| unsafe { sys::fbs_reference_put_file(self.raw(), path.as_ptr(), m, out) })
    }

    /// Continues, possibly in another process, the upload of `path` described by `session`
    /// (from [`Task::upload_session`]), from the offset the server reports.
    pub fn put_file_resuming(&self, path: &Path, session: &str, metadata: Option<&MetadataChanges>) -> Result<Task> {
        let (_keep, m) = raw_changes(metadata)?;
        let (path, session) = (c_path(path)?, c_string(session)?);
        Task::start(|out| unsafe { sys::fbs_reference_put_file_resuming(self.raw(), path.as_ptr(), session.as_ptr(), m, out) })
    }

    /// Downloads the object to `path` (replaced only on success).
    pub fn write_to_file(&self, path: &Path) -> Result<Task> {
        let path = c_path(path)?;
        Task::start(|out| unsafe { sys::fbs_reference_write_to_file(self.raw(), path.as_ptr(), out) })
    }

    /// The object's metadata.
    pub fn metadata(&self) -> Result<Metadata> {
        let mut out = std::ptr::null_mut();
        check(unsafe { sys::fbs_reference_get_metadata(self.raw(), &mut out) })?;
        Ok(unsafe { Metadata::take(out) })
    }

    /// Sends only the fields set on `changes` and returns the updated metadata.
    pub fn update_metadata(&self, changes: &MetadataChanges) -> Result<Metadata> {
        let changes = changes.to_raw()?;
        let mut out = std::ptr::null_mut();
        check(unsafe { sys::fbs_reference_update_metadata(self.raw(), changes.0, &mut out) })?;
        Ok(unsafe { Metadata::take(out) })
    }

    pub fn delete(&self) -> Result<()> {
        check(unsafe { sys::fbs_reference_delete(self.raw()) })
    }

    /// A download URL with the object's first download token.
    pub fn download_url(&self) -> Result<String> {
        let mut out = std::ptr::null_mut();
        check(unsafe { sys::fbs_reference_download_url(self.raw(), &mut out) })?;
        Ok(unsafe { owned(out) }.unwrap_or_default())
    }

    /// The object's bytes; fails with `DownloadSizeExceeded`, before downloading, when it is
    /// larger than `max_size`.
    pub fn get_data(&self, max_size: u64) -> Result<Vec<u8>> {
        let (mut bytes, mut length) = (std::ptr::null_mut(), 0usize);
        let max_size = i64::try_from(max_size).unwrap_or(i64::MAX);
        let mut vectors = VecAllocator::default();
        let allocator = vectors.native();
        check(unsafe { sys::fbs_reference_get_data_into(self.raw(), max_size, &allocator, &mut bytes, &mut length) })?;
        Ok(vectors.take(bytes, length))
    }

    /// The bytes of `length` bytes from `offset` (None: to the end). Fails with
    /// `RangeNotSatisfiable` for a range past the end, and with `DownloadSizeExceeded`, before
    /// reading, for one larger than `max_size`. A dropped connection continues with Range.
    pub fn get_range(&self, offset: u64, length: Option<u64>, max_size: u64) -> Result<Vec<u8>> {
        let (offset, length, max_size) = range_arguments(offset, length, max_size)?;
        let (mut bytes, mut size) = (std::ptr::null_mut(), 0usize);
        check(unsafe { sys::fbs_reference_get_range(self.raw(), offset, length, max_size, &mut bytes, &mut size) })?;
        let data = if size == 0 { Vec::new() } else { unsafe { std::slice::from_raw_parts(bytes.cast::<u8>(), size) }.to_vec() };
        unsafe { sys::fbs_data_free(bytes) };
        Ok(data)
    }

    /// As `get_range`, as a future (any executor; woken from the library's callback thread).
    pub fn get_range_async(&self, offset: u64, length: Option<u64>, max_size: u64) -> impl std::future::Future<Output = Result<Vec<u8>>> + Send + 'static {
        let pending = crate::completion::Completion::<Vec<u8>>::new();
        let started = range_arguments(offset, length, max_size).and_then(|(offset, length, max_size)| {
            let user_data = pending.user_data();
            check(unsafe { sys::fbs_reference_get_range_async(self.raw(), offset, length, max_size, Some(crate::completion::on_data), user_data) })
                .inspect_err(|_| unsafe { crate::completion::Completion::<Vec<u8>>::forget(user_data) })
        });
        async move {
            started?;
            pending.await
        }
    }

    /// The object as `Read + Seek`, streamed in constant memory (its size read first).
    pub fn reader(&self) -> Result<ObjectReader> {
        ObjectReader::new(self, 0, None)
    }

    /// `length` bytes from `offset` (None: to the end) as `Read + Seek`, streamed in constant memory.
    pub fn range_reader(&self, offset: u64, length: Option<u64>) -> Result<ObjectReader> {
        ObjectReader::new(self, offset, length)
    }

    /// An upload of unknown length as `Write`, with the writable fields and custom metadata of
    /// `metadata`; [`ObjectWriter::finish`] ends it.
    pub fn writer(&self, metadata: Option<&MetadataChanges>) -> Result<ObjectWriter> {
        ObjectWriter::new(self, metadata)
    }

    /// One page of the objects and folders directly below this reference. `max_results`
    /// 1..=1000, or 0 to let the server choose.
    pub fn list(&self, max_results: u32, page_token: Option<&str>) -> Result<ListResult> {
        let token = c_string_opt(page_token)?;
        let mut out = std::ptr::null_mut();
        check(unsafe { sys::fbs_reference_list(self.raw(), max_results.into(), ptr(&token), &mut out) })?;
        Ok(unsafe { ListResult::from_raw(out) })
    }

    /// Every page below this reference, in one result.
    pub fn list_all(&self) -> Result<ListResult> {
        let mut out = std::ptr::null_mut();
        check(unsafe { sys::fbs_reference_list_all(self.raw(), &mut out) })?;
        Ok(unsafe { ListResult::from_raw(out) })
    }

    /// The pages below this reference, fetched one by one as the iterator advances.
    pub fn pages(&self, max_results: u32) -> Pages {
        Pages::new(self.clone(), max_results)
    }
}

/// `(offset, length)` as the C API's: length -1 for "to the end".
fn range_arguments(offset: u64, length: Option<u64>, max_size: u64) -> Result<(i64, i64, i64)> {
    let too_large = || StorageError::new(ErrorCode::InvalidArgument, "A range bound beyond 2^63 - 1");
    let offset = i64::try_from(offset).map_err(|_| too_large())?;
    let length = length.map(|l| i64::try_from(l).map_err(|_| too_large())).transpose()?.unwrap_or(-1);
    Ok((offset, length, i64::try_from(max_size).unwrap_or(i64::MAX)))
}

impl Clone for Reference {
    fn clone(&self) -> Reference {
        unsafe { Reference::copy_from(self.raw()) }.expect("copying a valid reference")
    }
}

impl Drop for Reference {
    fn drop(&mut self) {
        unsafe { sys::fbs_reference_free(self.raw.as_ptr()) }
    }
}

/// `gs://bucket/path`.
impl std::fmt::Display for Reference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "gs://{}/{}", self.bucket(), self.full_path())
    }
}

impl std::fmt::Debug for Reference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Reference({self})")
    }
}

/// Downloads straight into a `Vec<u8>`: an `fbs_allocator` whose memory is new vectors' (each
/// kept as raw parts until the library hands one over or releases it), so `get_data` returns
/// the vector the library wrote into, with no copy after the socket's.
#[derive(Default)]
struct VecAllocator {
    live: Vec<(*mut u8, usize)>, // pointer and capacity of each vector handed to the library
}

impl VecAllocator {
    fn native(&mut self) -> sys::fbs_allocator {
        sys::fbs_allocator { allocate: Some(Self::allocate), release: Some(Self::release), user_data: (self as *mut Self).cast() }
    }

    unsafe extern "C" fn allocate(length: usize, user_data: *mut std::os::raw::c_void) -> *mut std::os::raw::c_void {
        // SAFETY: user_data is the VecAllocator of the running get_data (the library calls one at a time).
        let this = unsafe { &mut *user_data.cast::<Self>() };
        let mut vector = std::mem::ManuallyDrop::new(Vec::<u8>::with_capacity(length));
        this.live.push((vector.as_mut_ptr(), vector.capacity()));
        vector.as_mut_ptr().cast()
    }

    unsafe extern "C" fn release(memory: *mut std::os::raw::c_void, user_data: *mut std::os::raw::c_void) {
        // SAFETY: as in allocate; memory came from allocate.
        let this = unsafe { &mut *user_data.cast::<Self>() };
        if let Some(at) = this.live.iter().position(|&(pointer, _)| pointer == memory.cast()) {
            let (pointer, capacity) = this.live.swap_remove(at);
            drop(unsafe { Vec::from_raw_parts(pointer, 0, capacity) });
        }
    }

    /// The vector at `bytes`, now holding `length` bytes the library wrote.
    fn take(&mut self, bytes: *mut std::os::raw::c_void, length: usize) -> Vec<u8> {
        let at = self.live.iter().position(|&(pointer, _)| pointer == bytes.cast()).expect("the library handed over its allocator's memory");
        let (pointer, capacity) = self.live.swap_remove(at);
        // SAFETY: a vector of `capacity` whose first `length` bytes the library initialized.
        unsafe { Vec::from_raw_parts(pointer, length, capacity) }
    }
}

impl Drop for VecAllocator {
    fn drop(&mut self) {
        for &(pointer, capacity) in &self.live {
            drop(unsafe { Vec::from_raw_parts(pointer, 0, capacity) });
        }
    }
}
