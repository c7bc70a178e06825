/// The proxy a storage's requests go through, instead of libcurl's environment variables
/// (`https_proxy`, `http_proxy`, `all_proxy`, `no_proxy`, which apply while none is set).
public struct ProxySettings: Sendable, Equatable {
    /// `http://host:port` (https requests tunnel through CONNECT); any scheme libcurl knows
    /// (`socks5h://…`). Empty: no proxy at all, the environment variables ignored too.
    public var url: String
    /// Basic credentials for the proxy; never logged.
    public var username: String?
    public var password: String?
    /// Comma-separated hosts reached directly (`*`: all); nil: `no_proxy` from the environment.
    public var noProxy: String?

    public init(url: String, username: String? = nil, password: String? = nil, noProxy: String? = nil) {
        self.url = url
        self.username = username
        self.password = password
        self.noProxy = noProxy
    }
}
