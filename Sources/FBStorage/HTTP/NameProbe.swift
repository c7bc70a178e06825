import Glibc

/// Tells a host name that does not exist from a resolver that could not answer.
///
/// libcurl 7.88's threaded resolver reports both as `CURLE_COULDNT_RESOLVE_HOST` with the same
/// text. They call for opposite handling: a misspelled host must fail at once, while a DNS outage
/// (a laptop between networks, a gateway that starts before its network) is worth riding out. One
/// `getaddrinfo(3)` of the same name, through the same system resolver, answers which; it may block
/// for the resolver's timeout, so it runs on a short-lived thread of its own and never on the
/// transfer thread.
enum NameProbe {
    enum Answer: Sendable, Equatable {
        /// NXDOMAIN, or a name with no address (`EAI_NONAME`, `EAI_NODATA`).
        case doesNotExist
        /// The name resolves now (the outage ended between the two lookups).
        case resolves
        /// The resolver failed to answer (`EAI_AGAIN`, `EAI_FAIL`, ...): `gai_strerror`'s words.
        case resolverFailed(String)
    }

    /// Looks `host` up on a detached thread and passes the answer to `completion` there.
    /// If no thread can be started, answers `.resolverFailed` on the calling thread.
    static func start(host: String, _ completion: @escaping @Sendable (Answer) -> Void) {
        let rc = DetachedThread.start { completion(NameProbe.lookUp(host)) }
        if rc != 0 { completion(.resolverFailed("cannot start a thread to ask the resolver (pthread_create: \(rc))")) }
    }

    /// One blocking lookup of `host`, classified.
    static func lookUp(_ host: String) -> Answer {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, nil, &hints, &found)
        if let found { freeaddrinfo(found) }
        switch rc {
        case 0: return .resolves
        case EAI_NONAME, eaiNoData: return .doesNotExist
        case EAI_SYSTEM: return .resolverFailed(String(cString: strerror(errno)))
        default: return .resolverFailed(String(cString: gai_strerror(rc)))
        }
    }
}

/// glibc's `EAI_NODATA` ("No address associated with hostname"), declared only under `_GNU_SOURCE`.
private let eaiNoData: Int32 = -5
