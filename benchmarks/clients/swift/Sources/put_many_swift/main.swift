// put_many_swift HOST:PORT BUCKET PREFIX COUNT SIZE
//
// The FirebaseStorage client of the swift_api workload: uploads COUNT objects PREFIX/00000.. of
// SIZE random bytes with putData(_:metadata:completion:), one at a time (the next starts when
// the previous completion ran, on the storage's callback queue), and prints {"seconds": S} —
// the same work as `put_many ... COUNT SIZE 1` through the C API.
import FirebaseCore
import FirebaseStorage
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 6, let count = Int(arguments[4]), let size = Int(arguments[5]), count > 0,
      let colon = arguments[1].lastIndex(of: ":"), let port = Int(arguments[1][arguments[1].index(after: colon)...]) else {
    FileHandle.standardError.write(Data("usage: put_many_swift HOST:PORT BUCKET PREFIX COUNT SIZE\n".utf8))
    exit(2)
}
let options = FirebaseOptions(googleAppID: "1:1:ios:bench", gcmSenderID: "1")
options.storageBucket = arguments[2]
FirebaseApp.configure(options: options)
let storage = Storage.storage()
storage.useEmulator(withHost: String(arguments[1][..<colon]), port: port)
let root = storage.reference(withPath: arguments[3])
let payload = Data((0..<size).map { _ in UInt8.random(in: 0...255) })

let finished = DispatchSemaphore(value: 0)
var failure: Error?
let started = DispatchTime.now()
for index in 0..<count {
    let digits = String(index)
    root.child(String(repeating: "0", count: max(0, 5 - digits.count)) + digits).putData(payload, metadata: nil) { _, error in
        failure = error
        finished.signal()
    }
    finished.wait()
    if let failure {
        FileHandle.standardError.write(Data("putData failed: \(failure)\n".utf8))
        exit(1)
    }
}
let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
print("{\"seconds\": \(String(format: "%.6f", seconds))}")
