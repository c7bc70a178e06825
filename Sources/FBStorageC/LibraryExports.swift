import FBStorage
#if canImport(Glibc)
import Glibc
#endif

// Library-wide functions: errors, freeing returned memory. The versions, constants and code
// names come from the header itself (Sources/CHeaderConstants).

private let emptyString: StaticString = ""

@_cdecl("fbs_last_error_message")
public func fbs_last_error_message() -> UnsafePointer<CChar> {
    Errors.current.message.map { UnsafePointer($0) }
        ?? UnsafeRawPointer(emptyString.utf8Start).assumingMemoryBound(to: CChar.self)
}

@_cdecl("fbs_last_error_http_status")
public func fbs_last_error_http_status() -> Int32 { Errors.current.httpStatus }

@_cdecl("fbs_last_error_server_response")
public func fbs_last_error_server_response() -> UnsafePointer<CChar>? {
    Errors.current.serverResponse.map { UnsafePointer($0) }
}

@_cdecl("fbs_library_system_ca_bundle")
public func fbs_library_system_ca_bundle(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        try Arguments.out(out).pointee = SystemTrust.discovered.file.flatMap(ownedCString)
    }
}

@_cdecl("fbs_string_free")
public func fbs_string_free(_ string: UnsafeMutablePointer<CChar>?) { free(string) }

@_cdecl("fbs_data_free")
public func fbs_data_free(_ bytes: UnsafeMutableRawPointer?) { free(bytes) }

/// A malloc'd copy the caller releases with fbs_string_free.
/// (`withCString` lends a native string's own bytes; passing the String to strdup directly
/// would build a temporary array first.)
func ownedCString(_ string: String) -> UnsafeMutablePointer<CChar>? { string.withCString { strdup($0) } }
