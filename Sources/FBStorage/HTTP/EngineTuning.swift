/// libcurl buffer sizes. The defaults were picked by measuring 1 GiB FileBody PUTs to a loopback sink
/// (numbers in docs of the engine branch report); tests may override them.
struct EngineTuning: Sendable {
    /// `CURLOPT_UPLOAD_BUFFERSIZE`: how much of the body each read callback fills (16 KiB ... 2 MiB).
    var uploadBufferSize: Int = 512 << 10
    /// `CURLOPT_BUFFERSIZE`: the receive buffer (1 KiB ... 10 MiB).
    var receiveBufferSize: Int = 256 << 10
    /// Idle easy handles kept for reuse.
    var easyHandlePoolSize: Int = 16

    static let `default` = EngineTuning()
}
