//! Links libfbstorage.so: from FBS_LIBDIR when set, else the repository's build/lib.
//! The run-time search path is recorded too, so tests and examples run without LD_LIBRARY_PATH.
use std::path::PathBuf;

fn main() {
    let libdir = match std::env::var_os("FBS_LIBDIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../build/lib"),
    };
    println!("cargo:rerun-if-env-changed=FBS_LIBDIR");
    println!("cargo:rustc-link-search=native={}", libdir.display());
    println!("cargo:rustc-link-lib=dylib=fbstorage");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", libdir.display());
}
