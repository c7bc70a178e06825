/// A completed HTTP exchange. `body` is empty when the body was streamed to `onBodyData`.
struct HTTPResponse: Sendable {
    /// Status code of the final response (interim 1xx responses are skipped; redirects are not followed).
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]
}
