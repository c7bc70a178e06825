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

    /// This app's component of `type`, or nil when no product registered one nor a maker (see
    /// `registerComponentMaker`) makes one.
    public func component<Component>(_ type: Component.Type) -> Component? {
        let (existing, maker) = FirebaseApp.componentsLock.withLock {
            (components[ObjectIdentifier(type)] as? Component, FirebaseApp.componentMakers[ObjectIdentifier(type)])
        }
        if let existing { return existing }
        // Made with no lock held: a maker may run a product's (and its caller's) code.
        guard let made = maker?(self) as? Component else { return nil }
        return FirebaseApp.componentsLock.withLock {
            if let raced = components[ObjectIdentifier(type)] as? Component { return raced }
            components[ObjectIdentifier(type)] = made
            return made
        }
    }

    nonisolated(unsafe) private static var componentMakers: [ObjectIdentifier: (FirebaseApp) -> Any?] = [:]

    /// Makes `make(app)` the component of `type` of every app that has none when it is first asked
    /// for (nil: none), as the Apple SDK's container instantiates a product's component lazily:
    /// FirebaseAppCheck, once a provider factory is installed, so that every app's storages send
    /// App Check tokens with no code from the caller.
    public static func registerComponentMaker<Component>(_ type: Component.Type, make: @escaping (FirebaseApp) -> Component?) {
        componentsLock.withLock { componentMakers[ObjectIdentifier(type)] = { make($0) } }
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
