// The user_data of a _full call and its destroy callback (fbs_destroy_notify, as GLib's
// GDestroyNotify). The closures the library keeps for the C callback capture this object, so
// destroy runs exactly once, when the last of them is released: the core releases them with no
// lock held, after their last call returned.

public typealias fbs_destroy_notify = @convention(c) (UnsafeMutableRawPointer?) -> Void

final class OwnedUserData: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer?
    private let destroy: fbs_destroy_notify?

    init(_ pointer: UnsafeMutableRawPointer?, destroy: fbs_destroy_notify?) {
        self.pointer = pointer
        self.destroy = destroy
    }

    deinit { destroy?(pointer) }
}
