import Dispatch
import Foundation
import XCTest

/// The shape of testSimpleGetDataWithCustomCallbackQueue (firebase-ios-sdk,
/// FirebaseStorage/Tests/Integration/StorageIntegration.swift): `storage` is an implicitly
/// unwrapped property set in setUp and cleared in tearDown; the completion, queued from another
/// thread onto a custom queue, fulfills the expectation and then uses `self.storage`. Instead of
/// trapping, this counts the rounds where tearDown had already run.
final class CallbackAfterFulfillTests: XCTestCase {
    var storage: NSObject!
    private static let counts = NSLock()
    nonisolated(unsafe) private static var tests = 0
    nonisolated(unsafe) private static var tearDownFirst = 0

    override func setUp() {
        super.setUp()
        storage = NSObject()
    }

    override func tearDown() {
        storage = nil
        super.tearDown()
    }

    override class func tearDown() {
        counts.withLock {
            print("callback-after-fulfill: tearDown came first in \(tearDownFirst) of \(tests) tests")
        }
        super.tearDown()
    }

    private func callbackAfterFulfill() {
        let expectation = self.expectation(description: #function)
        let callbackQueue = DispatchQueue(label: "customCallbackQueue")
        DispatchQueue.global().async {
            callbackQueue.async {
                expectation.fulfill()
                let cleared = self.storage == nil  // the test's `self.storage.callbackQueue = …`
                Self.counts.withLock {
                    Self.tests += 1
                    if cleared { Self.tearDownFirst += 1 }
                }
            }
        }
        waitForExpectations(timeout: 10)
    }

    func test00() { callbackAfterFulfill() }; func test01() { callbackAfterFulfill() }; func test02() { callbackAfterFulfill() }; func test03() { callbackAfterFulfill() }; func test04() { callbackAfterFulfill() }
    func test05() { callbackAfterFulfill() }; func test06() { callbackAfterFulfill() }; func test07() { callbackAfterFulfill() }; func test08() { callbackAfterFulfill() }; func test09() { callbackAfterFulfill() }
    func test10() { callbackAfterFulfill() }; func test11() { callbackAfterFulfill() }; func test12() { callbackAfterFulfill() }; func test13() { callbackAfterFulfill() }; func test14() { callbackAfterFulfill() }
    func test15() { callbackAfterFulfill() }; func test16() { callbackAfterFulfill() }; func test17() { callbackAfterFulfill() }; func test18() { callbackAfterFulfill() }; func test19() { callbackAfterFulfill() }
    func test20() { callbackAfterFulfill() }; func test21() { callbackAfterFulfill() }; func test22() { callbackAfterFulfill() }; func test23() { callbackAfterFulfill() }; func test24() { callbackAfterFulfill() }
    func test25() { callbackAfterFulfill() }; func test26() { callbackAfterFulfill() }; func test27() { callbackAfterFulfill() }; func test28() { callbackAfterFulfill() }; func test29() { callbackAfterFulfill() }
    func test30() { callbackAfterFulfill() }; func test31() { callbackAfterFulfill() }; func test32() { callbackAfterFulfill() }; func test33() { callbackAfterFulfill() }; func test34() { callbackAfterFulfill() }
    func test35() { callbackAfterFulfill() }; func test36() { callbackAfterFulfill() }; func test37() { callbackAfterFulfill() }; func test38() { callbackAfterFulfill() }; func test39() { callbackAfterFulfill() }
    func test40() { callbackAfterFulfill() }; func test41() { callbackAfterFulfill() }; func test42() { callbackAfterFulfill() }; func test43() { callbackAfterFulfill() }; func test44() { callbackAfterFulfill() }
    func test45() { callbackAfterFulfill() }; func test46() { callbackAfterFulfill() }; func test47() { callbackAfterFulfill() }; func test48() { callbackAfterFulfill() }; func test49() { callbackAfterFulfill() }
    func test50() { callbackAfterFulfill() }; func test51() { callbackAfterFulfill() }; func test52() { callbackAfterFulfill() }; func test53() { callbackAfterFulfill() }; func test54() { callbackAfterFulfill() }
    func test55() { callbackAfterFulfill() }; func test56() { callbackAfterFulfill() }; func test57() { callbackAfterFulfill() }; func test58() { callbackAfterFulfill() }; func test59() { callbackAfterFulfill() }
    func test60() { callbackAfterFulfill() }; func test61() { callbackAfterFulfill() }; func test62() { callbackAfterFulfill() }; func test63() { callbackAfterFulfill() }; func test64() { callbackAfterFulfill() }
    func test65() { callbackAfterFulfill() }; func test66() { callbackAfterFulfill() }; func test67() { callbackAfterFulfill() }; func test68() { callbackAfterFulfill() }; func test69() { callbackAfterFulfill() }
    func test70() { callbackAfterFulfill() }; func test71() { callbackAfterFulfill() }; func test72() { callbackAfterFulfill() }; func test73() { callbackAfterFulfill() }; func test74() { callbackAfterFulfill() }
    func test75() { callbackAfterFulfill() }; func test76() { callbackAfterFulfill() }; func test77() { callbackAfterFulfill() }; func test78() { callbackAfterFulfill() }; func test79() { callbackAfterFulfill() }
    func test80() { callbackAfterFulfill() }; func test81() { callbackAfterFulfill() }; func test82() { callbackAfterFulfill() }; func test83() { callbackAfterFulfill() }; func test84() { callbackAfterFulfill() }
    func test85() { callbackAfterFulfill() }; func test86() { callbackAfterFulfill() }; func test87() { callbackAfterFulfill() }; func test88() { callbackAfterFulfill() }; func test89() { callbackAfterFulfill() }
    func test90() { callbackAfterFulfill() }; func test91() { callbackAfterFulfill() }; func test92() { callbackAfterFulfill() }; func test93() { callbackAfterFulfill() }; func test94() { callbackAfterFulfill() }
    func test95() { callbackAfterFulfill() }; func test96() { callbackAfterFulfill() }; func test97() { callbackAfterFulfill() }; func test98() { callbackAfterFulfill() }; func test99() { callbackAfterFulfill() }
}
