// Shared by every fuzz target (each is compiled with the Model sources it needs; see mk/fuzz.mk).

/// Stops the run when a property of the code under test does not hold: libFuzzer records the
/// input as a crash, like any trap.
func invariant(_ holds: Bool, _ what: @autoclosure () -> String,
               file: StaticString = #fileID, line: UInt = #line) {
    if !holds { fatalError("invariant: \(what())", file: file, line: line) }
}

/// The fuzzer's input as a Swift array.
func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}
