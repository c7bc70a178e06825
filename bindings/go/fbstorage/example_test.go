package fbstorage_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"fbstorage"
)

// Sign in, upload with metadata as that user, read the metadata back.
func Example() {
	ctx := context.Background()
	auth, err := fbstorage.NewAuth("demo-api-key", "demo-project") // FIREBASE_AUTH_EMULATOR_HOST
	if err != nil {
		log.Fatal(err)
	}
	defer auth.Close()
	user, err := auth.SignInAnonymously(ctx)
	if err != nil {
		log.Fatal(err)
	}
	storage, err := fbstorage.NewStorage("my-app.appspot.com") // FIREBASE_STORAGE_EMULATOR_HOST
	if err != nil {
		log.Fatal(err)
	}
	defer storage.Close()
	if err := storage.UseAuth(auth); err != nil {
		log.Fatal(err)
	}
	note, _ := storage.Reference("users/" + user.UID + "/note.txt")
	task, err := note.PutData(ctx, []byte("hello, world"), &fbstorage.MetadataChanges{ContentType: fbstorage.String("text/plain")})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := task.Wait(ctx); err != nil {
		log.Fatal(err)
	}
	metadata, err := note.Metadata(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(metadata.Size, metadata.ContentType)
	// Output: 12 text/plain
}

// Errors wrap the library's codes.
func ExampleCode() {
	storage, _ := fbstorage.NewStorage("my-app.appspot.com")
	defer storage.Close()
	missing, _ := storage.Reference("examples/no such object")
	_, err := missing.Metadata(context.Background())
	var failure *fbstorage.Error
	fmt.Println(errors.Is(err, fbstorage.ErrObjectNotFound), errors.As(err, &failure) && failure.HTTPStatus == 404)
	// Output: true true
}

// Pages is an iterator function: call it with the loop body (or range over it on Go 1.23+).
func ExampleReference_Pages() {
	ctx := context.Background()
	storage, _ := fbstorage.NewStorage("my-app.appspot.com")
	defer storage.Close()
	folder, _ := storage.Reference("examples/pages")
	for _, name := range []string{"a", "b", "c"} {
		child, _ := folder.Child(name)
		task, _ := child.PutData(ctx, []byte(name), nil)
		task.Wait(ctx)
	}
	folder.Pages(ctx, 2)(func(page *fbstorage.ListResult, err error) bool {
		if err != nil {
			log.Fatal(err)
		}
		for _, item := range page.Items {
			fmt.Print(item.Name(), " ")
		}
		fmt.Println("| next page:", page.PageToken != "")
		return true
	})
	// Output:
	// a b | next page: true
	// c | next page: false
}
