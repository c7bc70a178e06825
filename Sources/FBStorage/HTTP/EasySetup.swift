import CCurl

extension EasyTransfer {
    /// Sets every option of a fresh (or `curl_easy_reset`) handle for `request`.
    /// `self` must stay alive while curl may call back: the caller retains it for that time.
    func configure(_ request: HTTPRequest, tuning: EngineTuning, userAgent: String) throws(TransportError) {
        let h = easy
        let me = Unmanaged.passUnretained(self).toOpaque()
        var rc = CURLE_OK
        var badOption = ""
        func check(_ code: CURLcode, _ what: @autoclosure () -> String) {
            if rc == CURLE_OK && code != CURLE_OK { rc = code; badOption = what() }
        }

        check(ccurl_setopt_string(h, CURLOPT_URL, request.url), "URL")
        check(ccurl_setopt_string(h, CURLOPT_PROTOCOLS_STR, "http,https"), "PROTOCOLS_STR")
        // URLs are sent as built: curl would otherwise drop "." and ".." segments, turning the
        // object ".." into the bucket and "a/." into an empty name.
        check(ccurl_setopt_long(h, CURLOPT_PATH_AS_IS, 1), "PATH_AS_IS")
        check(ccurl_setopt_long(h, CURLOPT_NOSIGNAL, 1), "NOSIGNAL")
        // A name lookup that outlives its transfer (a resolver slower than the connect timeout, a
        // cancel) finishes on its own thread: without this, libcurl 7.88 joins that thread when the
        // transfer ends, and the transfer thread, every transfer of the storage, waits for the
        // resolver's own timeout. A libcurl before 7.87 lacks the option and waits: not an error.
        let quickExit = ccurl_setopt_long(h, CURLOPT_QUICK_EXIT, 1)
        if quickExit != CURLE_UNKNOWN_OPTION { check(quickExit, "QUICK_EXIT") }
        // HTTP/2 where an https server offers it (ALPN), as Google's front ends do: the storage's
        // concurrent transfers then share one connection (libcurl multiplexes by default), and a
        // transfer started while the first connection is still being made waits for it rather
        // than opening its own (PIPEWAIT; with HTTP/1.1 it opens its own once that is known).
        // HTTP/1.1 for http, and with a libcurl built without nghttp2 (the wheel's).
        if CurlGlobal.supportsHTTP2 && request.url.hasPrefix("https:") {
            check(ccurl_setopt_long(h, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS), "HTTP_VERSION")
            check(ccurl_setopt_long(h, CURLOPT_PIPEWAIT, 1), "PIPEWAIT")
        } else {
            check(ccurl_setopt_long(h, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1), "HTTP_VERSION")
        }
        check(ccurl_setopt_long(h, CURLOPT_FOLLOWLOCATION, 0), "FOLLOWLOCATION")
        check(ccurl_setopt_pointer(h, CURLOPT_PRIVATE, me), "PRIVATE")
        check(ccurl_setopt_pointer(h, CURLOPT_ERRORBUFFER, errorBuffer), "ERRORBUFFER")
        check(ccurl_setopt_string(h, CURLOPT_USERAGENT, userAgent), "USERAGENT")

        // Limits. LOW_SPEED_* counts both directions, so a long upload is not a stall.
        check(ccurl_setopt_long(h, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(request.connectTimeout)), "CONNECTTIMEOUT")
        check(ccurl_setopt_long(h, CURLOPT_TIMEOUT_MS, request.timeout.map(Self.milliseconds) ?? 0), "TIMEOUT")
        check(ccurl_setopt_long(h, CURLOPT_LOW_SPEED_LIMIT, 1), "LOW_SPEED_LIMIT")
        check(ccurl_setopt_long(h, CURLOPT_LOW_SPEED_TIME, max(1, Int(request.stallTimeout.rounded(.up)))), "LOW_SPEED_TIME")

        // TLS: always verify.
        check(ccurl_setopt_long(h, CURLOPT_SSL_VERIFYPEER, 1), "SSL_VERIFYPEER")
        check(ccurl_setopt_long(h, CURLOPT_SSL_VERIFYHOST, 2), "SSL_VERIFYHOST")
        if let caFile = request.caFile {
            // Instead of the system's: no directory either (libcurl may have a built-in one).
            check(ccurl_setopt_string(h, CURLOPT_CAINFO, caFile), "CAINFO")
            check(ccurl_setopt_pointer(h, CURLOPT_CAPATH, nil), "CAPATH")
        } else if request.url.utf8.first == UInt8(ascii: "h"), request.url.hasPrefix("https:") {
            let system = SystemTrust.discovered
            if let file = system.file { check(ccurl_setopt_string(h, CURLOPT_CAINFO, file), "CAINFO") }
            if let directory = system.directory { check(ccurl_setopt_string(h, CURLOPT_CAPATH, directory), "CAPATH") }
        }

        // Proxy: set, or left to libcurl's environment variables.
        if let proxy = request.proxy {
            check(ccurl_setopt_string(h, CURLOPT_PROXY, proxy.url), "PROXY")
            if let username = proxy.username { check(ccurl_setopt_string(h, CURLOPT_PROXYUSERNAME, username), "PROXYUSERNAME") }
            if let password = proxy.password { check(ccurl_setopt_string(h, CURLOPT_PROXYPASSWORD, password), "PROXYPASSWORD") }
            if let noProxy = proxy.noProxy { check(ccurl_setopt_string(h, CURLOPT_NOPROXY, noProxy), "NOPROXY") }
        }

        // Buffers no larger than the transfer needs: curl allocates them for each transfer, and
        // above glibc's mmap threshold (128 KiB) each is a fresh mapping whose pages fault in
        // (one small upload cost ~1.4 page faults and two more system calls, 3 % of its CPU).
        let uploadBuffer = request.body.map { min(tuning.uploadBufferSize, max(Int($0.length), smallBuffer)) } ?? smallBuffer
        check(ccurl_setopt_long(h, CURLOPT_UPLOAD_BUFFERSIZE, uploadBuffer), "UPLOAD_BUFFERSIZE")
        // Under a download cap, smaller reads (a tenth of a second's worth, curl's minimum 1 KiB)
        // keep the pauses that hold it short; a cap set later keeps the full buffer.
        let receiveCap = SpeedCap.tightest(request.receiveCaps)
        let fullReceiveBuffer = request.receivesObjectBytes ? tuning.receiveBufferSize : smallBuffer
        let receiveBuffer = receiveCap > 0 ? min(fullReceiveBuffer, max(Int(receiveCap / 10), 1024)) : fullReceiveBuffer
        check(ccurl_setopt_long(h, CURLOPT_BUFFERSIZE, receiveBuffer), "BUFFERSIZE")

        // Callbacks: non-capturing closures; the context comes back through the userdata pointer.
        check(ccurl_setopt_write_callback(h, CURLOPT_HEADERFUNCTION) { line, size, count, ctx in
            let t = Unmanaged<EasyTransfer>.fromOpaque(ctx!).takeUnretainedValue()
            return t.headerLine(UnsafeRawBufferPointer(start: line, count: size * count)) ? size * count : 0
        }, "HEADERFUNCTION")
        check(ccurl_setopt_pointer(h, CURLOPT_HEADERDATA, me), "HEADERDATA")
        check(ccurl_setopt_write_callback(h, CURLOPT_WRITEFUNCTION) { data, size, count, ctx in
            let t = Unmanaged<EasyTransfer>.fromOpaque(ctx!).takeUnretainedValue()
            switch t.bodyData(UnsafeRawBufferPointer(start: data, count: size * count)) {
            case .taken: return size * count
            case .paused: return Int(CURL_WRITEFUNC_PAUSE)
            case .abort: return Int(CURL_WRITEFUNC_ERROR)
            }
        }, "WRITEFUNCTION")
        check(ccurl_setopt_pointer(h, CURLOPT_WRITEDATA, me), "WRITEDATA")
        check(ccurl_setopt_long(h, CURLOPT_NOPROGRESS, 0), "NOPROGRESS")
        check(ccurl_setopt_xferinfo_callback(h, CURLOPT_XFERINFOFUNCTION) { ctx, _, _, _, uploaded in
            Unmanaged<EasyTransfer>.fromOpaque(ctx!).takeUnretainedValue().progress(uploaded: Int64(uploaded))
        }, "XFERINFOFUNCTION")
        check(ccurl_setopt_pointer(h, CURLOPT_XFERINFODATA, me), "XFERINFODATA")

        let method = request.method
        let hasBody = request.body != nil
        let sendsBody = hasBody || method == "POST" || method == "PUT"
        if sendsBody {
            check(ccurl_setopt_read_callback(h, CURLOPT_READFUNCTION) { buffer, size, count, ctx in
                let t = Unmanaged<EasyTransfer>.fromOpaque(ctx!).takeUnretainedValue()
                return t.readBody(into: UnsafeMutableRawPointer(buffer!), count: size * count)
            }, "READFUNCTION")
            check(ccurl_setopt_pointer(h, CURLOPT_READDATA, me), "READDATA")
            check(ccurl_setopt_seek_callback(h, CURLOPT_SEEKFUNCTION) { ctx, offset, origin in
                Unmanaged<EasyTransfer>.fromOpaque(ctx!).takeUnretainedValue().seekBody(to: Int64(offset), origin: origin)
            }, "SEEKFUNCTION")
            check(ccurl_setopt_pointer(h, CURLOPT_SEEKDATA, me), "SEEKDATA")
        }
        switch method {
        case "PUT":
            check(ccurl_setopt_long(h, CURLOPT_UPLOAD, 1), "UPLOAD")
            check(ccurl_setopt_off(h, CURLOPT_INFILESIZE_LARGE, Int(bodyLength)), "INFILESIZE_LARGE")
        case _ where sendsBody:
            // POST, and PATCH/DELETE/... with a body: a POST whose body comes from the read callback.
            check(ccurl_setopt_long(h, CURLOPT_POST, 1), "POST")
            check(ccurl_setopt_off(h, CURLOPT_POSTFIELDSIZE_LARGE, Int(bodyLength)), "POSTFIELDSIZE_LARGE")
            if method != "POST" { check(ccurl_setopt_string(h, CURLOPT_CUSTOMREQUEST, method), "CUSTOMREQUEST") }
        case "GET":
            check(ccurl_setopt_long(h, CURLOPT_HTTPGET, 1), "HTTPGET")
        case "HEAD":
            check(ccurl_setopt_long(h, CURLOPT_NOBODY, 1), "NOBODY")
        default:
            check(ccurl_setopt_string(h, CURLOPT_CUSTOMREQUEST, method), "CUSTOMREQUEST")
        }

        headerList = try Self.headerList(request.headers, sendsBody: sendsBody)
        check(ccurl_setopt_slist(h, CURLOPT_HTTPHEADER, headerList), "HTTPHEADER")

        if rc != CURLE_OK {
            throw .rejectedByLibcurl(message: "libcurl refused CURLOPT_\(badOption): \(String(cString: curl_easy_strerror(rc)))")
        }
    }

    /// The request's headers as a curl list, plus the removals of curl's own defaults the protocol
    /// must not get: `Expect: 100-continue` (an extra round trip per request) and, for bodies, the
    /// `Content-Type: application/x-www-form-urlencoded` curl adds to POSTs.
    private static func headerList(
        _ headers: [(name: String, value: String)], sendsBody: Bool
    ) throws(TransportError) -> UnsafeMutablePointer<curl_slist>? {
        var hasExpect = false, hasContentType = false
        for (name, value) in headers {
            guard !name.isEmpty, !name.utf8.contains(where: { $0 <= 0x20 || $0 == UInt8(ascii: ":") || $0 == 0x7F }),
                  !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 })
            else {
                // The value may be a credential: name the field only when the name itself is printable.
                throw .invalidRequest(message: "invalid request header field (control character or bad name)")
            }
            hasExpect = hasExpect || HTTPHeaders.namesEqual(name, "Expect")
            hasContentType = hasContentType || HTTPHeaders.namesEqual(name, "Content-Type")
        }
        // One reused line buffer, not a string per header: this ran for every request.
        var list: UnsafeMutablePointer<curl_slist>?
        var line: [UInt8] = []
        line.reserveCapacity(256)
        func append(_ name: String, _ value: String?) throws(TransportError) {
            line.removeAll(keepingCapacity: true)
            line.append(contentsOf: name.utf8)
            switch value {
            case nil: line.append(UInt8(ascii: ":"))          // "Name:" removes curl's own header
            case ""?: line.append(UInt8(ascii: ";"))          // "Name;" sends an empty value
            case let value?:
                line.append(contentsOf: ": ".utf8)
                line.append(contentsOf: value.utf8)
            }
            line.append(0)
            let appended = line.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { curl_slist_append(list, $0.baseAddress) }
            }
            guard let appended else {
                if let list { curl_slist_free_all(list) }
                throw .failed(code: Int32(CURLE_OUT_OF_MEMORY.rawValue), message: "out of memory building request headers")
            }
            list = appended
        }
        for (name, value) in headers { try append(name, value) }
        if !hasExpect { try append("Expect", nil) }
        if sendsBody && !hasContentType { try append("Content-Type", nil) }
        return list
    }

    private static func milliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int(min(seconds * 1000, Double(Int32.max)).rounded(.up))
    }
}

/// curl's default buffer size (16 KiB, the upload buffer's minimum): what a request body or an
/// answer of a few KiB needs.
private let smallBuffer = 16 << 10
