//! [`Completion`]: the future of one `_async` call whose callback runs exactly once.
use std::future::Future;
use std::os::raw::c_void;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use crate::error::{Result, StorageError};
use crate::registry::lock;

#[derive(Default)]
struct Slot<T> {
    outcome: Option<Result<T>>,
    waker: Option<Waker>,
}

/// Resolved by the call's callback, which owns one reference to the slot (`user_data`).
pub(crate) struct Completion<T> {
    slot: Arc<Mutex<Slot<T>>>,
}

impl<T> Completion<T> {
    pub(crate) fn new() -> Completion<T> {
        Completion { slot: Arc::new(Mutex::new(Slot { outcome: None, waker: None })) }
    }

    /// The callback's reference, to pass as user_data.
    pub(crate) fn user_data(&self) -> *mut c_void {
        Arc::into_raw(self.slot.clone()) as *mut c_void
    }

    /// Takes back a reference given by `user_data` whose call did not start.
    pub(crate) unsafe fn forget(user_data: *mut c_void) {
        drop(unsafe { Arc::from_raw(user_data as *const Mutex<Slot<T>>) });
    }

    /// The callback's side: resolves the future (consumes the reference).
    unsafe fn resolve(user_data: *mut c_void, outcome: Result<T>) {
        let slot = unsafe { Arc::from_raw(user_data as *const Mutex<Slot<T>>) };
        let waker = {
            let mut slot = lock(&slot);
            slot.outcome = Some(outcome);
            slot.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<T> Future for Completion<T> {
    type Output = Result<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<T>> {
        let mut slot = lock(&self.slot);
        match slot.outcome.take() {
            Some(outcome) => Poll::Ready(outcome),
            None => {
                slot.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

/// An `fbs_data_callback`: copies the borrowed bytes.
pub(crate) unsafe extern "C" fn on_data(status: i32, bytes: *const c_void, length: usize, user_data: *mut c_void) {
    let outcome = if status != 0 {
        Err(StorageError::last(status)) // this callback's thread: its last error describes the failure
    } else if length == 0 {
        Ok(Vec::new())
    } else {
        Ok(unsafe { std::slice::from_raw_parts(bytes.cast::<u8>(), length) }.to_vec())
    };
    unsafe { Completion::<Vec<u8>>::resolve(user_data, outcome) }
}
