// Auth-state and ID-token listeners: called once at registration, then on the changes their kind
// covers, on the callback queue; removed ones are not called again.
import EmulatorProcess
import FirebaseAuth
import Foundation
import Testing

@Suite("FirebaseAuth listeners", .timeLimit(.minutes(1)))
struct ListenerTests {
    @Test("the state listener hears registration, sign-in and sign-out, not token refreshes; the ID-token one hears all",
          arguments: Flavor.allCases)
    func listeners(flavor: Flavor) async throws {
        let auth = makeAuth(flavor)
        let states = ListenerEvents(), tokens = ListenerEvents()
        let stateHandle = auth.addStateDidChangeListener { listenerAuth, user in
            #expect(listenerAuth === auth)
            states.record(user)
        }
        let tokenHandle = auth.addIDTokenDidChangeListener { _, user in tokens.record(user) }
        #expect(await states.next() == Heard(uid: nil, onQueue: true))
        #expect(await tokens.next() == Heard(uid: nil, onQueue: true))

        let uid = try await auth.signInAnonymously().user.uid
        #expect(await states.next() == Heard(uid: uid, onQueue: true))
        #expect(await tokens.next() == Heard(uid: uid, onQueue: true))

        _ = try await auth.currentUser?.getIDToken(forcingRefresh: true)
        #expect(await tokens.next() == Heard(uid: uid, onQueue: true))

        // Signing in again as the same user is no change of state either (the next state event is the sign-out).
        let email = newEmail()
        let passwordUID = try await auth.createUser(withEmail: email, password: "secret-password").user.uid
        #expect(await states.next()?.uid == passwordUID)
        #expect(await tokens.next()?.uid == passwordUID)
        _ = try await auth.signIn(withEmail: email, password: "secret-password")
        #expect(await tokens.next()?.uid == passwordUID)
        try auth.signOut()
        #expect(await tokens.next() == Heard(uid: nil, onQueue: true))
        #expect(await states.next() == Heard(uid: nil, onQueue: true))

        // Removed listeners stay silent: a listener added afterwards hears the next sign-in, they do not.
        auth.removeStateDidChangeListener(stateHandle)
        auth.removeIDTokenDidChangeListener(tokenHandle)
        let later = ListenerEvents()
        let laterHandle = auth.addIDTokenDidChangeListener { _, user in later.record(user) }
        #expect(await later.next()?.uid == nil)
        let next = try await auth.signInAnonymously().user.uid
        #expect(await later.next()?.uid == next)
        auth.removeIDTokenDidChangeListener(laterHandle)
        #expect(states.count == 4 && tokens.count == 6)
    }
}
