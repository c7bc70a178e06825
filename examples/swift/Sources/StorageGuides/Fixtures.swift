import FirebaseStorage
import Foundation

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
    }
}
