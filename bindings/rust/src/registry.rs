//! Closures handed to the library. The library gets a key, never a pointer: a callback whose
//! closure was removed (even while the callback was on its way) finds nothing and does nothing,
//! and a closure running while it is removed lives until it returns. So removing never waits
//! on a callback and never frees memory the library still uses.
use std::collections::HashMap;
use std::os::raw::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// A stored closure; a running call holds a clone of the Arc.
type Entry<F> = Arc<Mutex<Box<F>>>;

pub(crate) struct Registry<F: ?Sized> {
    entries: Mutex<Option<HashMap<u64, Entry<F>>>>,
}

static NEXT_KEY: AtomicU64 = AtomicU64::new(1);

pub(crate) fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A closure that panicked is reported by `call`; its state stays usable.
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl<F: ?Sized> Registry<F> {
    pub(crate) const fn new() -> Self {
        Registry { entries: Mutex::new(None) }
    }

    /// Stores a closure; the key goes to the library as user_data.
    pub(crate) fn insert(&self, closure: Box<F>) -> u64 {
        let key = NEXT_KEY.fetch_add(1, Ordering::Relaxed);
        lock(&self.entries).get_or_insert_with(HashMap::new).insert(key, Arc::new(Mutex::new(closure)));
        key
    }

    pub(crate) fn remove(&self, key: u64) {
        let removed = lock(&self.entries).as_mut().and_then(|map| map.remove(&key));
        drop(removed); // outside the registry's lock: the closure's captures may drop handles
    }

    /// Runs the closure stored under user_data, if it is still there. A panic stops at this
    /// frame (it must not unwind into C) and is reported on stderr.
    pub(crate) fn call(&self, user_data: *mut c_void, run: impl FnOnce(&mut F)) {
        let entry = lock(&self.entries).as_ref().and_then(|map| map.get(&(user_data as u64)).cloned());
        if let Some(entry) = entry {
            let outcome = catch_unwind(AssertUnwindSafe(|| run(&mut **lock(&entry))));
            if outcome.is_err() {
                eprintln!("fbstorage: a callback panicked; the panic was stopped at the library boundary");
            }
        }
    }
}

pub(crate) fn user_data(key: u64) -> *mut c_void {
    key as *mut c_void
}
