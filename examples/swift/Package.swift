// swift-tools-version:5.9
// The "Cloud Storage on Apple platforms" and Firebase Auth guides' Swift snippets, compiled and run on
// Linux against this repository's FirebaseStorage, FirebaseAuth and FirebaseCore products (a path dependency, as a user's
// package would depend on a checkout).
import PackageDescription

let package = Package(
    name: "storage-guides",
    dependencies: [.package(name: "fbstorage", path: "../..")],
    targets: [
        .executableTarget(name: "StorageGuides", dependencies: [
            .product(name: "FirebaseCore", package: "fbstorage"),
            .product(name: "FirebaseStorage", package: "fbstorage"),
            .product(name: "FirebaseAuth", package: "fbstorage"),
        ]),
    ]
)
