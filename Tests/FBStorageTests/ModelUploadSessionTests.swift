@testable import FBStorage
import Testing

@Suite struct ModelUploadSessionTests {
    @Test func roundTripsWithTheVerifiedPrefix() throws {
        let session = UploadSession(sessionURL: "https://h/u?id=1", bucket: "b", object: "o/p", totalBytes: 10,
                                    verifiedBytes: 4, verifiedCRC32C: 0xFFFF_FFFF, confirmedBytes: 3)
        #expect(try UploadSession.decode(session.encode()) == session)
        // A string taken before confirmedBytes existed resumes from 0.
        let older = #"{"bucket":"b","object":"o","sessionURL":"https://h/u","totalBytes":10,"v":2,"verifiedBytes":4,"verifiedCRC32C":7}"#
        #expect(try UploadSession.decode(older).confirmedBytes == 0)
    }

    @Test func refusesOldOrInconsistentStrings() {
        let base = #""bucket":"b","object":"o","sessionURL":"https://h/u","totalBytes":10"#
        for text in ["{\(base),\"v\":1}",
                     "{\(base),\"v\":2}",
                     "{\(base),\"v\":2,\"verifiedBytes\":11,\"verifiedCRC32C\":0}",
                     "{\(base),\"v\":2,\"verifiedBytes\":-1,\"verifiedCRC32C\":0}",
                     "{\(base),\"v\":2,\"verifiedBytes\":1,\"verifiedCRC32C\":4294967296}",
                     "{\(base),\"v\":2,\"verifiedBytes\":4,\"verifiedCRC32C\":0,\"confirmedBytes\":5}",
                     "{\(base),\"v\":2,\"verifiedBytes\":4,\"verifiedCRC32C\":0,\"confirmedBytes\":\"1\"}"] {
            #expect(throws: StorageError.self) { try UploadSession.decode(text) }
        }
    }
}
