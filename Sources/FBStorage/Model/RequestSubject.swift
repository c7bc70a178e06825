/// What a request acts on, for its errors and log lines: an object, or a service call.
enum RequestSubject: Sendable, CustomStringConvertible {
    case object(StoragePath)
    /// A call to another service, e.g. "Firebase Auth accounts:signUp".
    case service(String)

    var description: String {
        switch self {
        case .object(let path): path.gsURL
        case .service(let name): name
        }
    }
}
