@testable import FBStorage
import Testing

@Suite struct ModelMultipartTests {
    @Test func boundariesAreRandomHex() {
        let boundaries = (0..<1000).map { _ in Multipart.makeBoundary() }   
        #expect(Set(boundaries).count == boundaries.count)
        #expect(boundaries.allSatisfy { $0.utf8.count == 32 && $0.utf8.allSatisfy { Array("0123456789abcdef".utf8).contains($0) } })
        // Every hex digit shows up in every position: the bytes are not stuck or skewed.
        for position in 0..<32 {
            let digits = Set(boundaries.map { $0.utf8[$0.utf8.index($0.utf8.startIndex, offsetBy: position)] })
            #expect(digits.count == 16)
        }
    }
}
