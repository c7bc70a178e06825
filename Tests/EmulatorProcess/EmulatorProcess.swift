// Starts the bundled emulator (python -m fbstorage.emulator) for the Swift test suites: one process
// per call, on a free port, stopped when the test process exits (its stdin closes).
import Glibc

/// The emulator's two flavors: the production API's behaviour, or the official emulator's.
public enum Flavor: String, CaseIterable, Sendable {
    case production
    case firebaseTools = "firebase-tools"
}

public enum EmulatorProcess {
    /// The repository root, from this file's path.
    public static var repository: String {
        var path = "\(#filePath)"
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path
    }

    /// Starts an emulator of `flavor` (with further command-line `arguments`) and returns its port
    /// once it is ready.
    public static func launch(_ flavor: Flavor, arguments: [String] = []) -> Int {
        let venvPython = repository + "/.venv/bin/python"
        let python = access(venvPython, X_OK) == 0 ? venvPython : "python3"
        var stdinPipe: [Int32] = [0, 0], stdoutPipe: [Int32] = [0, 0]
        precondition(pipe(&stdinPipe) == 0 && pipe(&stdoutPipe) == 0)
        for fd in stdinPipe + stdoutPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var pid = pid_t()
        let status = ChildProcess.spawn(
            ["env", "PYTHONPATH=\(repository)/bindings/python", python, "-m", "fbstorage.emulator",
             "--host", "127.0.0.1", "--port", "0", "--flavor", flavor.rawValue, "--stop-on-stdin-eof"]
                + arguments,
            stdin: stdinPipe[0], stdout: stdoutPipe[1], pid: &pid)
        precondition(status == 0, "cannot start the emulator: \(status)")
        close(stdinPipe[0])
        close(stdoutPipe[1])
        // stdinPipe[1] stays open (and close-on-exec) for the life of this process.
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(stdoutPipe[0], &byte, 1) == 1, byte != 0x0A { line.append(byte) }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("READY "), let port = text.split(separator: ":").last.flatMap({ Int($0) }) else {
            fatalError("the emulator printed '\(text)' instead of READY http://HOST:PORT")
        }
        // Keep reading (and dropping) its stdout so it never blocks on a full pipe.
        let reader = stdoutPipe[0]
        Thread.detach { var buffer = [UInt8](repeating: 0, count: 4096); while read(reader, &buffer, 4096) > 0 {} }
        return port
    }
}

public enum ChildProcess {
    /// posix_spawnp with optional stdin/stdout redirection; returns the posix_spawn error (0 = ok).
    /// The child starts with no signal blocked: test threads may block some, and a child inheriting
    /// a blocked SIGTERM could not be stopped.
    public static func spawn(_ args: [String], stdin: Int32? = nil, stdout: Int32? = nil, pid: inout pid_t) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin { posix_spawn_file_actions_adddup2(&actions, stdin, 0) }
        if let stdout { posix_spawn_file_actions_adddup2(&actions, stdout, 1) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        return posix_spawnp(&pid, args[0], &actions, &attributes, &argv, environ)
    }
}

public enum Thread {
    /// Runs `body` on a detached pthread.
    public static func detach(_ body: @escaping @Sendable () -> Void) {
        final class Box: @unchecked Sendable { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        pthread_create(&thread, nil, { context in
            Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, box)
        pthread_detach(thread)
    }
}
