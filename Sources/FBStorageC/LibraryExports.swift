import FBStorage
#if canImport(Glibc)
import Glibc
#endif

// Library-wide functions: versions, errors, freeing returned memory.

private let versionString: StaticString = "0.1.0"

@_cdecl("fbs_version")
public func fbs_version() -> UnsafePointer<CChar> {
    UnsafeRawPointer(versionString.utf8Start).assumingMemoryBound(to: CChar.self)
}

@_cdecl("fbs_abi_version")
public func fbs_abi_version() -> Int32 { 1 }

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

/// Static C names, made once.
nonisolated(unsafe) private let errorNames: [Int32: UnsafePointer<CChar>] = {
    var names: [Int32: UnsafePointer<CChar>] = [0: UnsafePointer(strdup("FBS_OK")!)]
    for code in StorageErrorCode.allCases { names[code.rawValue] = UnsafePointer(strdup(code.cName)!) }
    names[Int32.min] = UnsafePointer(strdup("FBS_ERR_?")!)
    return names
}()

@_cdecl("fbs_error_name")
public func fbs_error_name(_ code: Int32) -> UnsafePointer<CChar> {
    errorNames[code] ?? errorNames[Int32.min]!
}

@_cdecl("fbs_string_free")
public func fbs_string_free(_ string: UnsafeMutablePointer<CChar>?) { free(string) }

@_cdecl("fbs_data_free")
public func fbs_data_free(_ bytes: UnsafeMutableRawPointer?) { free(bytes) }

/// A malloc'd copy the caller releases with fbs_string_free.
/// (`withCString` lends a native string's own bytes; passing the String to strdup directly
/// would build a temporary array first.)
func ownedCString(_ string: String) -> UnsafeMutablePointer<CChar>? { string.withCString { strdup($0) } }
