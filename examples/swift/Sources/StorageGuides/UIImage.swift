import Foundation

/// Stands in for UIKit's `UIImage`, which Linux lacks, so the download guide's snippet compiles
/// unchanged.
struct UIImage {
    init?(data: Data) {}
}
