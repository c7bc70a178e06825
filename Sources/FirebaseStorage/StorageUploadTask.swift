import FBStorage

/// An upload started by `putData` or `putFile`.
open class StorageUploadTask: StorageObservableTask, StorageTaskManagement {
    init(reference: StorageReference, hooks: TaskHooks,
         start: ((FBStorage.StorageTask) -> Void) throws(FBStorage.StorageError) -> FBStorage.StorageUploadTask) {
        super.init(reference: reference, failure: TaskFailure(reference: reference), hooks: hooks, start: start)
    }
}
