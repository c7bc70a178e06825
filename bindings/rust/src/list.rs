//! Listing: [`ListResult`] pages and the [`Pages`] iterator.
use std::ptr::NonNull;

use crate::error::Result;
use crate::reference::Reference;
use crate::strings::borrowed;
use crate::sys;

/// One page (or, from `list_all`, every page) of objects and folders.
pub struct ListResult {
    raw: NonNull<sys::fbs_list_result>,
}

// SAFETY: immutable, thread-safe handle, freed only by Drop.
unsafe impl Send for ListResult {}
unsafe impl Sync for ListResult {}

fn lines(paths: Option<String>) -> Vec<String> {
    paths.unwrap_or_default().lines().map(str::to_owned).collect()
}

impl ListResult {
    pub(crate) unsafe fn from_raw(raw: *mut sys::fbs_list_result) -> ListResult {
        ListResult { raw: NonNull::new(raw).expect("the library returned a NULL list result with FBS_OK") }
    }

    fn raw(&self) -> *const sys::fbs_list_result {
        self.raw.as_ptr()
    }

    fn references(&self, count: usize, at: unsafe extern "C" fn(*const sys::fbs_list_result, usize) -> *const sys::fbs_reference) -> Vec<Reference> {
        (0..count).filter_map(|i| unsafe { Reference::copy_from(at(self.raw(), i)) }.ok()).collect()
    }

    /// The objects, in the server's order.
    pub fn items(&self) -> Vec<Reference> {
        self.references(unsafe { sys::fbs_list_result_item_count(self.raw()) }, sys::fbs_list_result_item)
    }

    /// The folders, in the server's order.
    pub fn prefixes(&self) -> Vec<Reference> {
        self.references(unsafe { sys::fbs_list_result_prefix_count(self.raw()) }, sys::fbs_list_result_prefix)
    }

    /// The objects' full paths (read in one call: cheap for thousands).
    pub fn item_paths(&self) -> Vec<String> {
        lines(unsafe { borrowed(sys::fbs_list_result_item_paths(self.raw())) })
    }

    /// The folders' full paths.
    pub fn prefix_paths(&self) -> Vec<String> {
        lines(unsafe { borrowed(sys::fbs_list_result_prefix_paths(self.raw())) })
    }

    /// The token of the next page; None on the last page.
    pub fn page_token(&self) -> Option<String> {
        unsafe { borrowed(sys::fbs_list_result_page_token(self.raw())) }
    }
}

impl std::fmt::Debug for ListResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ListResult")
            .field("items", &self.item_paths())
            .field("prefixes", &self.prefix_paths())
            .field("page_token", &self.page_token())
            .finish()
    }
}

impl Drop for ListResult {
    fn drop(&mut self) {
        unsafe { sys::fbs_list_result_free(self.raw.as_ptr()) }
    }
}

/// The pages below a reference ([`Reference::pages`]); each `next` sends one request. After an
/// error the iteration ends.
///
/// ```
/// # assert!(std::env::var_os("FIREBASE_STORAGE_EMULATOR_HOST").is_some(), "doctests talk to an emulator: run them with `make test-rust` or under Tests/c/with-emulator.sh");
/// let storage = fbstorage::Storage::new("docs-bucket")?;
/// let folder = storage.reference("docs/pages")?;
/// for name in ["a", "b", "c"] {
///     folder.child(name)?.put_data(name.as_bytes(), None)?.wait()?;
/// }
/// let mut names = Vec::new();
/// for page in folder.pages(2) {
///     names.extend(page?.item_paths());
/// }
/// assert_eq!(names, ["docs/pages/a", "docs/pages/b", "docs/pages/c"]);
/// # Ok::<(), fbstorage::StorageError>(())
/// ```
#[derive(Debug)]
pub struct Pages {
    reference: Reference,
    max_results: u32,
    next_token: Option<String>,
    finished: bool,
}

impl Pages {
    pub(crate) fn new(reference: Reference, max_results: u32) -> Pages {
        Pages { reference, max_results, next_token: None, finished: false }
    }
}

impl Iterator for Pages {
    type Item = Result<ListResult>;

    fn next(&mut self) -> Option<Result<ListResult>> {
        if self.finished {
            return None;
        }
        let page = self.reference.list(self.max_results, self.next_token.as_deref());
        match &page {
            Ok(result) => self.next_token = result.page_token(),
            Err(_) => self.next_token = None,
        }
        self.finished = self.next_token.is_none();
        Some(page)
    }
}

impl std::iter::FusedIterator for Pages {}
