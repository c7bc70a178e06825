import FBStorage

// fbstorage/stream.h: byte ranges, sinks, streams of unknown length, file descriptors.

public typealias fbs_sink_callback = @convention(c) (UnsafeRawPointer?, Int, UnsafeMutableRawPointer?) -> Int32
public typealias fbs_source_callback = @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeMutableRawPointer?) -> Int64

/// The header's (offset, length) convention as a range.
private func byteRange(_ offset: Int64, _ length: Int64) throws(StorageError) -> ByteRange {
    switch (offset >= 0, length >= 0) {
    case (true, true): return .slice(offset: offset, length: length)
    case (true, false): return .from(offset: offset)
    case (false, false) where offset != .min: return .last(count: -offset)
    case (false, false): throw .invalidArgument("The offset \(offset) is out of range")
    case (false, true):
        throw .invalidArgument("A range with a negative offset (the last bytes) needs a negative length, not \(length)")
    }
}

/// A callback's status as the task's error: its own code when it is one, else `unknown`.
private func callbackError(_ value: Int64, _ message: String) -> StorageError {
    let code = Int32(exactly: value).flatMap(StorageErrorCode.init(rawValue:)) ?? .unknown
    return StorageError(code: code, message: message)
}

@_cdecl("fbs_reference_get_range")
public func fbs_reference_get_range(_ r: OpaquePointer?, _ offset: Int64, _ length: Int64, _ maxSize: Int64,
                                    _ outBytes: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                                    _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let outBytes = try Arguments.out(outBytes, "out_bytes")
        let outLength = try Arguments.out(outLength, "out_length")
        let data = try StorageReference.behind(r).getData(range: byteRange(offset, length), maxSize: maxSize)
        (outBytes.pointee, outLength.pointee) = try handOver(data)
    }
}

@_cdecl("fbs_reference_get_range_async")
public func fbs_reference_get_range_async(_ r: OpaquePointer?, _ offset: Int64, _ length: Int64, _ maxSize: Int64,
                                          _ cb: fbs_data_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    startAsync(cb, userData, { done throws(StorageError) in
        try StorageReference.behind(r).getData(range: byteRange(offset, length), maxSize: maxSize, completion: done)
    }) { cb, result, userData in
        switch result {
        case .success(let data): data.withUnsafeBytes { cb(0, $0.baseAddress, $0.count, userData) }
        case .failure(let error): cb(error.code.rawValue, nil, 0, userData)
        }
    }
}

@_cdecl("fbs_reference_read_range")
public func fbs_reference_read_range(_ r: OpaquePointer?, _ offset: Int64, _ length: Int64, _ buffer: UnsafeMutableRawPointer?,
                                     _ capacity: Int, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    startTask(r, out) { reference throws(StorageError) in
        guard buffer != nil || capacity == 0 else { throw .invalidArgument("buffer is NULL") }
        guard capacity >= 0 else { throw .invalidArgument("capacity \(UInt(bitPattern: capacity)) is larger than any buffer") }
        return try reference.read(range: byteRange(offset, length), into: buffer, capacity: capacity)
    }
}

@_cdecl("fbs_reference_stream")
public func fbs_reference_stream(_ r: OpaquePointer?, _ offset: Int64, _ length: Int64, _ sink: fbs_sink_callback?,
                                 _ userData: UnsafeMutableRawPointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    startTask(r, out) { reference throws(StorageError) in
        guard let sink else { throw .invalidArgument("The sink is NULL") }
        let userData = UserData(pointer: userData)
        var offered: Int64 = 0
        return try reference.stream(range: offset == 0 && length < 0 ? nil : byteRange(offset, length)) { bytes in
            let answer = sink(bytes.baseAddress, bytes.count, userData.pointer)
            guard answer == 0 else {
                return callbackError(Int64(answer), "The sink refused the bytes at offset \(offered) of the download (it returned \(answer))")
            }
            offered += Int64(bytes.count)
            return nil
        }
    }
}

@_cdecl("fbs_reference_write_to_fd")
public func fbs_reference_write_to_fd(_ r: OpaquePointer?, _ fd: Int32, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    startTask(r, out) { reference throws(StorageError) in try reference.write(toDescriptor: fd) }
}

@_cdecl("fbs_reference_put_stream")
public func fbs_reference_put_stream(_ r: OpaquePointer?, _ read: fbs_source_callback?, _ userData: UnsafeMutableRawPointer?,
                                     _ metadata: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    startTask(r, out) { reference throws(StorageError) in
        guard let read else { throw .invalidArgument("The read callback is NULL") }
                let userData = UserData(pointer: userData)
        var offset: Int64 = 0
        return try reference.putStream(metadata: optionalMetadata(metadata)) { buffer in
            let n = read(buffer.baseAddress, buffer.count, userData.pointer)
            if n == Int64(StorageUploadTask.streamNotReady) { return .success(StorageUploadTask.streamNotReady) }   // FBS_SOURCE_NOT_READY
            guard n >= 0 else {
                return .failure(callbackError(n, "The read callback failed at offset \(offset) of the upload (it returned \(n))"))
            }
            guard n <= buffer.count else {
                return .failure(.invalidArgument("The read callback returned \(n) bytes, more than the \(buffer.count) asked for"))
            }
            offset += n
            return .success(Int(n))
        }
    }
}

@_cdecl("fbs_reference_put_fd")
public func fbs_reference_put_fd(_ r: OpaquePointer?, _ fd: Int32, _ metadata: OpaquePointer?,
                                 _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    startTask(r, out) { reference throws(StorageError) in
                return try reference.putDescriptor(fd, metadata: optionalMetadata(metadata))
    }
}
