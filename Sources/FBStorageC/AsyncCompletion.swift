import FBStorage

// The _async calls' plumbing and the completion callback types of fbstorage/common.h. An async
// completion gets borrowed arguments and, on failure, the error is recorded on the callback thread
// first so the callback can read fbs_last_error_message().

public typealias fbs_completion_callback = @convention(c) (Int32, UnsafeMutableRawPointer?) -> Void
public typealias fbs_metadata_callback = @convention(c) (Int32, OpaquePointer?, UnsafeMutableRawPointer?) -> Void
public typealias fbs_list_callback = @convention(c) (Int32, OpaquePointer?, UnsafeMutableRawPointer?) -> Void
public typealias fbs_string_callback = @convention(c) (Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void
public typealias fbs_data_callback = @convention(c) (Int32, UnsafeRawPointer?, Int, UnsafeMutableRawPointer?) -> Void

/// Starts an async operation: on completion, `deliver` gets the callback (checked non-NULL
/// here), the result and the user data, after a failure is recorded as the last error.
func startAsync<Callback: Sendable, T: Sendable>(
    _ callback: Callback?, _ userData: UnsafeMutableRawPointer?,
    _ start: (@escaping StorageCompletion<T>) throws(StorageError) -> Void,
    deliver: @escaping @Sendable (Callback, Result<T, StorageError>, UnsafeMutableRawPointer?) -> Void
) -> Int32 {
    Errors.status { () throws(StorageError) in
        guard let callback else { throw StorageError(code: .invalidArgument, message: "The callback is NULL") }
        let userData = UserData(pointer: userData)
        try start { result in
            if case .failure(let error) = result { Errors.record(error) }
            deliver(callback, result, userData.pointer)
        }
    }
}

func code<T>(_ result: Result<T, StorageError>) -> Int32 {
    switch result {
    case .success: return 0
    case .failure(let error): return error.code.rawValue
    }
}

/// Delivers a string result to a C string callback: the string lent for the call, or NULL with
/// the failure's code.
func deliver(_ result: Result<String, StorageError>, to cb: fbs_string_callback, _ userData: UnsafeMutableRawPointer?) {
    switch result {
    case .success(let string): string.withCString { cb(0, $0, userData) }
    case .failure(let error): cb(error.code.rawValue, nil, userData)
    }
}
