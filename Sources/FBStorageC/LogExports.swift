import FBStorage

// fbs_library_set_log_handler: the process-wide debug log, as C callbacks.

public typealias fbs_log_handler = @convention(c) (Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void

@_cdecl("fbs_library_set_log_handler")
public func fbs_library_set_log_handler(_ handler: fbs_log_handler?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    guard let handler else {
        LogHook.setHandler(nil)
        return 0
    }
    let userData = UserData(pointer: userData)
    LogHook.setHandler { level, line in
        line.withCString { handler(level.rawValue, $0, userData.pointer) }
    }
    return 0
}
