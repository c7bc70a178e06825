import FBStorage

/// An upload started by `putData` or `putFile`.
open class StorageUploadTask: StorageObservableTask, StorageTaskManagement {
    init(reference: StorageReference, start: () throws(FBStorage.StorageError) -> FBStorage.StorageUploadTask) {
        super.init(reference: reference) { () throws(FBStorage.StorageError) in try start() }
    }
}
