// swift-tools-version:5.9
// The race that stops the Apple SDK's testSimpleGetDataWithCustomCallbackQueue, with no storage
// code at all: a callback on a queue of its own fulfills the test's expectation, then reads a
// property that tearDown sets to nil. `swift test` here prints in how many of 100 tests tearDown
// came first (measured on 2 shared cores: 28 of 1,000 tests on an idle machine, 38 of 1,200 beside two CPU
// hogs; from 0 to 21 in a run of 100).
import PackageDescription

let package = Package(name: "CallbackAfterFulfill", targets: [.testTarget(name: "CallbackAfterFulfill")])
