//! Test support: the bundled emulator (one per flavor per test binary, on a free port), its
//! control API over a minimal HTTP/1.0 client, unique object paths, and a tiny `block_on`.
#![allow(dead_code)]

use std::future::Future;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::pin::pin;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;

use fbstorage::{Snapshot, Storage, Task, TaskStatus};

pub const FLAVORS: [&str; 2] = ["production", "firebase-tools"];
pub const SMALL_CHUNK: u64 = 256 * 1024;

pub struct Emulator {
    pub host: String,
    pub port: u16,
    // Held open: the emulator stops when this process exits and the pipe closes.
    _stdin: Mutex<ChildStdin>,
    _child: Mutex<Child>,
}

pub fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

impl Emulator {
    /// A new emulator of `flavor`, with `extra` arguments (e.g. `--rules FILE`).
    pub fn start(flavor: &str, extra: &[&str]) -> Emulator {
        let python = std::env::var_os("FBS_PYTHON").map(PathBuf::from).unwrap_or_else(|| repository().join(".venv/bin/python"));
        let mut child = Command::new(python)
            .args(["-m", "fbstorage.emulator", "--host", "127.0.0.1", "--port", "0", "--stop-on-stdin-eof", "--no-auth", "--flavor", flavor])
            .args(extra)
            .env("PYTHONPATH", repository().join("bindings/python"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("starting the emulator");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).expect("reading READY");
        let address = line.trim().strip_prefix("READY http://").unwrap_or_else(|| panic!("the emulator printed {line:?}"));
        let (host, port) = address.rsplit_once(':').unwrap();
        Emulator {
            host: host.to_owned(),
            port: port.parse().unwrap(),
            _stdin: Mutex::new(child.stdin.take().unwrap()),
            _child: Mutex::new(child),
        }
    }

    /// The emulator of this flavor, started on first use.
    pub fn get(flavor: &str) -> &'static Emulator {
        static PRODUCTION: OnceLock<Emulator> = OnceLock::new();
        static FIREBASE_TOOLS: OnceLock<Emulator> = OnceLock::new();
        let cell = if flavor == "production" { &PRODUCTION } else { &FIREBASE_TOOLS };
        cell.get_or_init(|| Emulator::start(flavor, &[]))
    }

    pub fn address(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }

    /// A storage of bucket "rust-tests" on this emulator.
    pub fn storage(&self) -> Storage {
        let storage = Storage::new("rust-tests").unwrap();
        storage.use_emulator(&self.host, self.port).unwrap();
        storage
    }

    /// A storage sending SMALL_CHUNK chunks, and a fresh object name (from `name`) whose chunks
    /// this emulator delays by `delay_ms`, so a test can act while an upload runs.
    pub fn slow_storage(&self, name: &str, delay_ms: u32) -> (Storage, String) {
        let storage = self.storage();
        storage.set_upload_chunk_size(SMALL_CHUNK).unwrap();
        let name = unique(name);
        self.slow_chunks(&name, delay_ms);
        (storage, name)
    }

    /// One request to the emulator; returns the status and body.
    pub fn request(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        let mut stream = TcpStream::connect((self.host.as_str(), self.port)).unwrap();
        write!(stream, "{method} {path} HTTP/1.0\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}", self.address(), body.len()).unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let status = response.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let body = response.split_once("\r\n\r\n").map_or("", |(_, b)| b).to_owned();
        (status, body)
    }

    /// Adds a fault (docs/emulator.md, "Faults").
    pub fn add_fault(&self, fault: &str) {
        let (status, body) = self.request("POST", "/_emulator/faults", fault);
        assert_eq!(status, 201, "{body}");
    }

    /// Delays every resumable chunk of objects whose name contains `name`.
    pub fn slow_chunks(&self, name: &str, delay_ms: u32) {
        self.add_fault(&format!(
            r#"{{"match": {{"query_contains": "{}", "header": {{"X-Goog-Upload-Command": "upload"}}}}, "times": 1000, "action": {{"delay_ms": {delay_ms}}}}}"#,
            name.replace('/', "%2F")
        ));
    }
}

/// An object path no other test (or run) uses.
pub fn unique(name: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!("{name}-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Deterministic bytes of `length`.
pub fn payload(length: u64) -> Vec<u8> {
    (0..length).map(|i| (i * 31 % 251) as u8).collect()
}

/// A temporary file, removed on drop.
pub struct TempFile(pub PathBuf);

impl TempFile {
    pub fn with(data: &[u8]) -> TempFile {
        let file = TempFile::path("bin");
        std::fs::write(&file.0, data).unwrap();
        file
    }

    pub fn path(extension: &str) -> TempFile {
        TempFile(std::env::temp_dir().join(format!("{}.{extension}", unique("fbstorage-rust"))))
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Runs a future to completion on this thread, parking between polls: the smallest executor,
/// proving tasks need no particular runtime.
pub fn block_on<F: Future>(future: F) -> F::Output {
    struct Unpark(Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut context = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
        std::thread::park();
    }
}

/// Records a task's events; tests wait on it for an event (never sleep to order them).
#[derive(Clone, Default)]
pub struct Events(Arc<(Mutex<Vec<Snapshot>>, Condvar)>);

pub const ALL_STATUSES: [TaskStatus; 5] =
    [TaskStatus::Resume, TaskStatus::Progress, TaskStatus::Pause, TaskStatus::Success, TaskStatus::Failure];

impl Events {
    pub fn observe_all(&self, task: &Task) {
        for status in ALL_STATUSES {
            let events = self.clone();
            task.observe(status, move |s| events.push(s)).unwrap();
        }
    }

    pub fn push(&self, snapshot: &Snapshot) {
        self.0 .0.lock().unwrap().push(snapshot.clone());
        self.0 .1.notify_all();
    }

    /// The first event matching `wanted`, waiting up to 30 s for it.
    pub fn wait_until(&self, wanted: impl Fn(&Snapshot) -> bool) -> Snapshot {
        let (events, changed) = &*self.0;
        let guard = events.lock().unwrap();
        let (guard, timeout) = changed.wait_timeout_while(guard, Duration::from_secs(30), |e| !e.iter().any(&wanted)).unwrap();
        assert!(!timeout.timed_out(), "event not seen within 30 s; saw {:?}", guard.iter().map(|s| s.status).collect::<Vec<_>>());
        guard.iter().find(|s| wanted(s)).unwrap().clone()
    }

    pub fn wait_for(&self, status: TaskStatus) -> Snapshot {
        self.wait_until(|s| s.status == status)
    }

    pub fn snapshots(&self) -> Vec<Snapshot> {
        self.0 .0.lock().unwrap().clone()
    }

    pub fn statuses(&self) -> Vec<TaskStatus> {
        self.snapshots().iter().map(|s| s.status).collect()
    }
}
