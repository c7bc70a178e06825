import Foundation

/// Per-app instances one product offers another without importing it, as the Apple SDK's component
/// container does: FirebaseAuth registers the token source of `Auth.auth(app:)` here, and
/// FirebaseStorage finds it by its interop protocol, so a storage of the app sends its user's ID
/// token with no code from the caller.
extension FirebaseApp {
    private static let componentsLock = NSLock()

    /// Makes `instance` this app's component of `type` (replacing any previous one).
    public func register<Component>(_ instance: Component, as type: Component.Type) {
        FirebaseApp.componentsLock.withLock { components[ObjectIdentifier(type)] = instance }
    }

    /// This app's component of `type`, or nil when no product registered one.
    public func component<Component>(_ type: Component.Type) -> Component? {
        FirebaseApp.componentsLock.withLock { components[ObjectIdentifier(type)] as? Component }
    }

    /// This app's component of `type`, created by `make` (under the registry's lock, so once per app)
    /// when there is none yet.
    public func component<Component>(_ type: Component.Type, orRegister make: () -> Component) -> Component {
        FirebaseApp.componentsLock.withLock {
            if let existing = components[ObjectIdentifier(type)] as? Component { return existing }
            let created = make()
            components[ObjectIdentifier(type)] = created
            return created
        }
    }
}
