// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "fbstorage",
    products: [
        // libfbstorage.so: the C ABI (include/fbstorage.h) over the Swift core.
        .library(name: "fbstorage", type: .dynamic, targets: ["FBStorageC"]),
        // The Apple SDK's Swift API (`import FirebaseCore`, `import FirebaseStorage`, `import FirebaseAuth`) over the core.
        .library(name: "FirebaseCore", targets: ["FirebaseCore"]),
        .library(name: "FirebaseStorage", targets: ["FirebaseStorage"]),
        .library(name: "FirebaseAuth", targets: ["FirebaseAuth"]),
        .library(name: "FirebaseAppCheck", targets: ["FirebaseAppCheck"]),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // libcrypto (already loaded with libcurl): RS256 for service accounts and signed URLs.
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(name: "CChecksums"),
        // fbs_version, fbs_abi_version, fbs_constant, fbs_error_name: compiled from include/fbstorage.h.
        .target(name: "CHeaderConstants"),
        .target(name: "FBStorage", dependencies: ["CCurl", "CCrypto", "CChecksums", "CHeaderConstants"]),
        // Keeps libfbstorage.so's glibc floor at 2.34 (the wheel's manylinux tag).
        .target(name: "CGlibcFloor"),
        .target(name: "FBStorageC", dependencies: ["FBStorage", "CHeaderConstants", "CGlibcFloor"]),
        // Swift 5 mode, as the Apple SDK: its callbacks are plain (non-Sendable) closures.
        .target(name: "FirebaseCore", dependencies: ["FBStorage"], swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(name: "FirebaseStorage", dependencies: ["FBStorage", "FirebaseCore"],
                swiftSettings: [.swiftLanguageMode(.v5)]),
        // FirebaseStorage reaches the app's Auth through FirebaseCore's component registry, not this target.
        .target(name: "FirebaseAuth", dependencies: ["FBStorage", "FirebaseCore"],
                swiftSettings: [.swiftLanguageMode(.v5)]),
        // FirebaseStorage reaches the app's App Check through FirebaseCore's component registry, not this target.
        .target(name: "FirebaseAppCheck", dependencies: ["FBStorage", "FirebaseCore"],
                swiftSettings: [.swiftLanguageMode(.v5)]),
        // Starts the bundled Python emulator for the Swift test suites.
        .target(name: "EmulatorProcess", path: "Tests/EmulatorProcess"),
        .testTarget(name: "FBStorageTests", dependencies: ["FBStorage", "EmulatorProcess"]),
        .testTarget(name: "FirebaseStorageTests", dependencies: ["FirebaseStorage", "FirebaseCore", "EmulatorProcess"],
                    swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(name: "FirebaseAppCheckTests",
                    dependencies: ["FirebaseAppCheck", "FirebaseStorage", "FirebaseCore", "EmulatorProcess"],
                    swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(name: "FirebaseAuthTests",
                    dependencies: ["FirebaseAuth", "FirebaseStorage", "FirebaseCore", "EmulatorProcess"],
                    swiftSettings: [.swiftLanguageMode(.v5)]),
    ]
)
