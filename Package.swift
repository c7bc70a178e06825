// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "fbstorage",
    products: [
        // libfbstorage.so: the C ABI (include/fbstorage.h) over the Swift core.
        .library(name: "fbstorage", type: .dynamic, targets: ["FBStorageC"]),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(name: "CChecksums"),
        .target(name: "FBStorage", dependencies: ["CCurl", "CChecksums"]),
        .target(name: "FBStorageC", dependencies: ["FBStorage"]),
        .testTarget(name: "FBStorageTests", dependencies: ["FBStorage"]),
    ]
)
