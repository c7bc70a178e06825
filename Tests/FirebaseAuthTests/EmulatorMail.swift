// What a test reads from the Auth emulator in place of a mailbox (the oobCodes route), and the
// official emulator's fake identity-provider tokens.
import EmulatorProcess
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

enum EmulatorMail {
    /// The one pending code (and its link) of `requestType` for `email` (or its new email).
    static func code(_ requestType: String, for email: String, _ flavor: Flavor) async throws -> (code: String, link: String) {
        let url = URL(string: "http://127.0.0.1:\(AuthEmulators.port(flavor))/emulator/v1/projects/demo-project/oobCodes")!
        let (data, response) = try await URLSession.shared.data(from: url)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let listed = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["oobCodes"] as? [[String: Any]] ?? []
        let matching = listed.filter {
            $0["requestType"] as? String == requestType
                && [$0["email"] as? String, $0["newEmail"] as? String].contains(email.lowercased())
        }
        let entry = try #require(matching.count == 1 ? matching.first : nil, "\(matching.count) \(requestType) codes for \(email)")
        return (try #require(entry["oobCode"] as? String), try #require(entry["oobLink"] as? String))
    }
}

/// The official Auth emulator's fake IdP token: an unsigned JWT of the claims.
func fakeIdPToken(sub: String, email: String, verified: Bool = true) -> String {
    func encoded(_ object: [String: Any]) -> String {
        try! JSONSerialization.data(withJSONObject: object).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
    return encoded(["alg": "none", "typ": "JWT"]) + "." + encoded(["sub": sub, "email": email, "email_verified": verified]) + "."
}
