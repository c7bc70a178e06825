import FirebaseStorage
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the guides' snippets expect to find: the local file `path/to/image` (in the working
/// directory) and the objects they read, list and delete.
enum Fixtures {
    static let image = Data((0..<64 * 1024).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    /// Files below `files/uid`: more than one page of 100.
    static let listedFiles = 150

    static func create() async throws {
        try FileManager.default.createDirectory(atPath: "path/to", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: "path/to/image", contents: image)
        let root = Storage.storage().reference()
        for path in ["images/island.jpg", "images/stars.jpg", "images/forest.jpg", "images/mountains.jpg", "desert.jpg",
                     "files/uid/nested/file.txt"] {
            _ = try await root.child(path).putDataAsync(image)
        }
        for index in 0..<listedFiles {
            _ = try await root.child("files/uid/file-\(index)").putDataAsync(Data("\(index)".utf8))
        }
        // The pause/resume/cancel snippet must see its download still running when it cancels:
        // the emulator holds each request for the object for 2 s (its test control API).
        try await addFault(#"{"match": {"method": "GET", "path_prefix": "/v0/b/\#(root.bucket)/o/images%2Fmountains.jpg"}, "times": 10, "action": {"delay_ms": 2000}}"#)
    }

    private static func addFault(_ json: String) async throws {
        let host = ProcessInfo.processInfo.environment["FIREBASE_STORAGE_EMULATOR_HOST"] ?? "127.0.0.1:9199"
        var request = URLRequest(url: URL(string: "http://\(host)/_emulator/faults")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(json.utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 201 else { throw URLError(.badServerResponse) }
    }
}
