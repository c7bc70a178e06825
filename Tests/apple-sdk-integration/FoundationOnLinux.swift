// What the tests use of Apple's Foundation that swift-corelibs-foundation lacks on Linux.
import Foundation

extension Data.WritingOptions {
  // Apple's Foundation: NSDataWritingAtomic under its Objective-C name, the same option as .atomic.
  static let atomicWrite = Data.WritingOptions.atomic
}
