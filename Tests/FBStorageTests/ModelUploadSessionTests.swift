@testable import FBStorage
import Testing

@Suite struct ModelUploadSessionTests {
    @Test func roundTripsWithTheVerifiedPrefix() throws {
        let session = UploadSession(sessionURL: "https://h/u?id=1", bucket: "b", object: "o/p", totalBytes: 10,
                                    verifiedBytes: 4, verifiedCRC32C: 0xFFFF_FFFF)
        #expect(try UploadSession.decode(session.encode()) == session)
    }

    @Test func refusesOldOrInconsistentStrings() {
        let base = #""bucket":"b","object":"o","sessionURL":"https://h/u","totalBytes":10"#
        for text in ["{\(base),\"v\":1}",
                     "{\(base),\"v\":2}",
                     "{\(base),\"v\":2,\"verifiedBytes\":11,\"verifiedCRC32C\":0}",
                     "{\(base),\"v\":2,\"verifiedBytes\":-1,\"verifiedCRC32C\":0}",
                     "{\(base),\"v\":2,\"verifiedBytes\":1,\"verifiedCRC32C\":4294967296}"] {
            #expect(throws: StorageError.self) { try UploadSession.decode(text) }
        }
    }
}
