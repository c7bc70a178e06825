// swift-tools-version:5.9
// The FirebaseStorage (Swift API) client of the swift_api workload; depends on the repository by path.
import PackageDescription

let package = Package(
    name: "fbstorage-bench-swift",
    dependencies: [.package(name: "fbstorage", path: "../../..")],
    targets: [
        .executableTarget(name: "put_many_swift", dependencies: [
            .product(name: "FirebaseCore", package: "fbstorage"),
            .product(name: "FirebaseStorage", package: "fbstorage"),
        ]),
    ]
)
