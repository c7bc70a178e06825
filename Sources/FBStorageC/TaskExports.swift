import FBStorage

// fbs_reference_put_* / write_to_file and fbs_task_*: tasks and their observers.

public typealias fbs_task_callback = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void

/// Starts a task from a reference handle and hands out an owned task handle.
func startTask(_ reference: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?,
                       _ start: (StorageReference) throws(StorageError) -> StorageTask) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        out.pointee = Handles.make(try start(StorageReference.behind(reference)))
    }
}

/// The metadata argument of an upload: NULL, or a metadata handle.
func optionalMetadata(_ metadata: OpaquePointer?) throws(StorageError) -> StorageMetadata? {
    guard let metadata else { return nil }
    return try StorageMetadata.behind(metadata)
}

@_cdecl("fbs_reference_put_data")
public func fbs_reference_put_data(_ reference: OpaquePointer?, _ bytes: UnsafeRawPointer?, _ length: Int,
                                   _ metadata: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    startTask(reference, out) { reference throws(StorageError) in
        guard bytes != nil || length == 0 else { throw StorageError(code: .invalidArgument, message: "bytes is NULL") }
        // A size_t above Int.max arrives negative; copying it would trap.
        guard length >= 0 else {
            throw StorageError(code: .invalidArgument, message: "length \(UInt(bitPattern: length)) is larger than any buffer")
        }
        let copy = bytes.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
        return try reference.putData(copy, metadata: optionalMetadata(metadata))
    }
}

@_cdecl("fbs_reference_put_file")
public func fbs_reference_put_file(_ reference: OpaquePointer?, _ path: UnsafePointer<CChar>?,
                                   _ metadata: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    startTask(reference, out) { reference throws(StorageError) in
        try reference.putFile(Arguments.string(path, "local_path"), metadata: optionalMetadata(metadata))
    }
}

@_cdecl("fbs_reference_put_file_resuming")
public func fbs_reference_put_file_resuming(_ reference: OpaquePointer?, _ path: UnsafePointer<CChar>?,
                                            _ session: UnsafePointer<CChar>?, _ metadata: OpaquePointer?,
                                            _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    startTask(reference, out) { reference throws(StorageError) in
        let session = try UploadSession.decode(Arguments.string(session, "session"))
        return try reference.putFile(Arguments.string(path, "local_path"), resuming: session,
                                     metadata: optionalMetadata(metadata))
    }
}

@_cdecl("fbs_reference_write_to_file")
public func fbs_reference_write_to_file(_ reference: OpaquePointer?, _ path: UnsafePointer<CChar>?,
                                        _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    startTask(reference, out) { reference throws(StorageError) in
        try reference.write(toFile: Arguments.string(path, "local_path"))
    }
}

@_cdecl("fbs_task_upload_session")
public func fbs_task_upload_session(_ task: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        let task = try StorageTask.behind(task)
        out.pointee = (task as? StorageUploadTask)?.uploadSession.flatMap { ownedCString($0.encode()) }
    }
}

private func status(_ raw: Int32) throws(StorageError) -> StorageTaskStatus {
    guard let status = StorageTaskStatus(rawValue: raw), status != .unknown else {
        throw StorageError(code: .invalidArgument, message: "status must be RESUME, PROGRESS, PAUSE, SUCCESS or FAILURE")
    }
    return status
}

@_cdecl("fbs_task_observe")
public func fbs_task_observe(_ task: OpaquePointer?, _ rawStatus: Int32, _ callback: fbs_task_callback?,
                             _ userData: UnsafeMutableRawPointer?, _ out: UnsafeMutablePointer<Int64>?) -> Int32 {
    fbs_task_observe_full(task, rawStatus, callback, userData, nil, out)
}

@_cdecl("fbs_task_observe_full")
public func fbs_task_observe_full(_ task: OpaquePointer?, _ rawStatus: Int32, _ callback: fbs_task_callback?,
                                  _ userData: UnsafeMutableRawPointer?, _ destroy: fbs_destroy_notify?,
                                  _ out: UnsafeMutablePointer<Int64>?) -> Int32 {
    // Owned from here: a failing call releases it (destroy runs) before returning.
    let userData = OwnedUserData(userData, destroy: destroy)
    return Errors.status { () throws(StorageError) in
        let task = try StorageTask.behind(task)
        let status = try status(rawStatus)
        guard let callback else { throw StorageError(code: .invalidArgument, message: "The callback is NULL") }
        let handle = try task.observe(status) { snapshot in
            Handles.lend(snapshot) { callback($0, userData.pointer) }
        }
        out?.pointee = handle
    }
}

@_cdecl("fbs_task_remove_observer")
public func fbs_task_remove_observer(_ task: OpaquePointer?, _ handle: Int64) -> Int32 {
    Errors.status { () throws(StorageError) in try StorageTask.behind(task).removeObserver(handle) }
}

@_cdecl("fbs_task_remove_all_observers_for_status")
public func fbs_task_remove_all_observers_for_status(_ task: OpaquePointer?, _ rawStatus: Int32) -> Int32 {
    Errors.status { () throws(StorageError) in
        try StorageTask.behind(task).removeAllObservers(for: status(rawStatus))
    }
}

@_cdecl("fbs_task_remove_all_observers")
public func fbs_task_remove_all_observers(_ task: OpaquePointer?) -> Int32 {
    Errors.status { () throws(StorageError) in try StorageTask.behind(task).removeAllObservers() }
}

@_cdecl("fbs_task_pause")
public func fbs_task_pause(_ task: OpaquePointer?) -> Int32 {
    Errors.status { () throws(StorageError) in try StorageTask.behind(task).pause() }
}

@_cdecl("fbs_task_resume")
public func fbs_task_resume(_ task: OpaquePointer?) -> Int32 {
    Errors.status { () throws(StorageError) in try StorageTask.behind(task).resume() }
}

@_cdecl("fbs_task_cancel")
public func fbs_task_cancel(_ task: OpaquePointer?) -> Int32 {
    Errors.status { () throws(StorageError) in try StorageTask.behind(task).cancel() }
}

@_cdecl("fbs_task_set_max_speed")
public func fbs_task_set_max_speed(_ task: OpaquePointer?, _ value: Int64) -> Int32 {
    Errors.status { () throws(StorageError) in
        try StorageTask.behind(task).speedCap.bytesPerSecond = Arguments.bytesPerSecond(value)
    }
}

@_cdecl("fbs_task_get_max_speed")
public func fbs_task_get_max_speed(_ task: OpaquePointer?, _ out: UnsafeMutablePointer<Int64>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        out.pointee = try StorageTask.behind(task).speedCap.bytesPerSecond
    }
}

@_cdecl("fbs_task_wait")
public func fbs_task_wait(_ task: OpaquePointer?, _ timeoutMs: Int64) -> Int32 {
    Errors.status { () throws(StorageError) in
        let task = try StorageTask.behind(task)
        guard let final = try task.wait(timeout: timeoutMs < 0 ? nil : Double(timeoutMs) / 1000) else {
            throw StorageError(code: .timeout, message: "Timed out after \(timeoutMs) ms; the task goes on")
        }
        if let error = final.error { throw error }
    }
}

@_cdecl("fbs_task_snapshot")
public func fbs_task_snapshot(_ task: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        out.pointee = Handles.make(try StorageTask.behind(task).snapshot)
    }
}

@_cdecl("fbs_task_free")
public func fbs_task_free(_ task: OpaquePointer?) { StorageTask.free(task) }
