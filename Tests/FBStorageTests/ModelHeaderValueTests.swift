@testable import FBStorage
import Testing

@Suite struct ModelHeaderValueTests {
    @Test func controlCharactersAreInvalidArgumentsNamingTheByteNotTheValue() {
        for bad in ["a\rb", "a\nb", "\u{0}x", "tab\there", "del\u{7F}", "secret\u{1B}"] {
            #expect(throws: StorageError.self) { try HeaderValue.check(bad, field: "The auth token") }
            do {
                try HeaderValue.check(bad, field: "The auth token")
            } catch {
                #expect(error.code == .invalidArgument)
                #expect(error.message.hasPrefix("The auth token contains a control character (0x"))
                #expect(!error.message.contains("secret") && !error.message.contains("del"))
            }
        }
        for good in ["", "Bearer abc.def-ghi_jkl", "text/plain; charset=utf-8", "attachment; filename*=UTF-8''%E2%82%AC", "ünïcode"] {
            #expect(throws: Never.self) { try HeaderValue.check(good, field: "f") }
        }
    }

    @Test func metadataChecksOnlyTheHeaderBoundFields() {
        var metadata = StorageMetadata()
        metadata.setCustom("note", "line one\nline two")   // JSON only: allowed
        #expect(throws: Never.self) { try metadata.checkHeaderFields() }
        metadata.contentLanguage = .value("en\r\nX-Evil: 1")
        #expect(throws: StorageError.self) { try metadata.checkHeaderFields() }
    }
}
