// "Create a Cloud Storage reference on Apple platforms": the guide's snippets, verbatim between the
// START/END markers.
import FirebaseStorage

enum CreateReferenceGuide {
    static func run() {
        // [START firstorage_storage]
        // Get a reference to the storage service using the default Firebase App
        let storage = Storage.storage()

        // Create a storage reference from our storage service
        let storageRef = storage.reference()
        // [END firstorage_storage]

        // [START firstorage_child]
        // Create a child reference
        // imagesRef now points to "images"
        let imagesRef = storageRef.child("images")

        // Child references can also take paths delimited by '/'
        // spaceRef now points to "images/space.jpg"
        // imagesRef still points to "images"
        var spaceRef = storageRef.child("images/space.jpg")
        // [END firstorage_child]
        check(imagesRef.fullPath == "images" && spaceRef.fullPath == "images/space.jpg", "child references")

        // The guide builds the same reference from the bucket's gs:// URL.
        spaceRef = storage.reference(forURL: "gs://\(storageRef.bucket)/images/space.jpg")
        check(spaceRef.fullPath == "images/space.jpg", "reference(forURL:)")

        // [START firstorage_parent]
        // Parent allows us to move to the parent of a reference
        // imagesRef now points to 'images'
        let parentRef = spaceRef.parent()

        // Root allows us to move all the way back to the top of our bucket
        // rootRef now points to the root
        let rootRef = spaceRef.root()
        // [END firstorage_parent]
        check(parentRef?.fullPath == "images" && rootRef.fullPath == "", "parent() and root()")

        // [START firstorage_chain]
        // References can be chained together multiple times
        // earthRef points to "images/earth.jpg"
        let earthRef = spaceRef.parent()?.child("earth.jpg")

        // nilRef is nil, since the parent of root is nil
        let nilRef = spaceRef.root().parent()
        // [END firstorage_chain]
        check(earthRef?.fullPath == "images/earth.jpg" && nilRef == nil, "chained references")

        // [START firstorage_properties]
        // Reference's path is: "images/space.jpg"
        // This is analogous to a file path on disk
        spaceRef.fullPath

        // Reference's name is the last segment of the full path: "space.jpg"
        // This is analogous to the file name
        spaceRef.name

        // Reference's bucket is the name of the storage bucket where files are stored
        spaceRef.bucket
        // [END firstorage_properties]
        check(spaceRef.name == "space.jpg" && spaceRef.bucket == storageRef.bucket, "reference properties")

        combined()
    }

    static func combined() {
        // [START firstorage_combined]
        // Points to the root reference
        let storageRef = Storage.storage().reference()

        // Points to "images"
        let imagesRef = storageRef.child("images")

        // Points to "images/space.jpg"
        // Note that you can use variables to create child values
        let fileName = "space.jpg"
        let spaceRef = imagesRef.child(fileName)

        // File path is "images/space.jpg"
        let path = spaceRef.fullPath;

        // File name is "space.jpg"
        let name = spaceRef.name;

        // Points to "images"
        let images = spaceRef.parent()
        // [END firstorage_combined]
        check(path == "images/space.jpg" && name == "space.jpg" && images == imagesRef, "combined example")
    }

    /// The download guide's reference snippet names a placeholder bucket and a URL without `/v0/`,
    /// which the Apple SDK (like this one) refuses at run time: it is compiled, not run.
    static func referenceFromURLs() {
        // [START firstorage_reference]
        let storage = Storage.storage()
        // Create a reference with an initial file path and name
        let pathReference = storage.reference(withPath: "images/stars.jpg")

        // Create a reference from a Google Cloud Storage URI
        let gsReference = storage.reference(forURL: "gs://<your-firebase-storage-bucket>/images/stars.jpg")

        // Create a reference from an HTTPS URL
        // Note that in the URL, characters are URL escaped!
        let httpsReference = storage.reference(forURL: "https://firebasestorage.googleapis.com/b/bucket/o/images%20stars.jpg")
        // [END firstorage_reference]
        _ = (pathReference, gsReference, httpsReference)
    }
}
