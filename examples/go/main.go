// upload FILE [-bucket BUCKET] — signs in anonymously, uploads FILE to users/<uid>/<name> with a
// progress line, then prints its metadata, download URL and the user's folder. Ctrl-C cancels
// the upload. FIREBASE_STORAGE_EMULATOR_HOST / FIREBASE_AUTH_EMULATOR_HOST select the emulator.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"

	"fbstorage"
)

func main() {
	bucket := flag.String("bucket", "demo-bucket", "the bucket")
	flag.Parse()
	if flag.NArg() != 1 {
		log.Fatal("usage: upload [-bucket BUCKET] FILE")
	}
	file := flag.Arg(0)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	auth, err := fbstorage.NewAuth("demo-api-key", "demo-project")
	check(err)
	defer auth.Close()
	user, err := auth.SignInAnonymously(ctx)
	check(err)
	storage, err := fbstorage.NewStorage(*bucket)
	check(err)
	defer storage.Close()
	check(storage.UseAuth(auth))

	reference, err := storage.Reference(fmt.Sprintf("users/%s/%s", user.UID, filepath.Base(file)))
	check(err)
	task, err := reference.PutFile(ctx, file, &fbstorage.MetadataChanges{Custom: map[string]string{"uploaded-by": "examples/go"}})
	check(err)
	_, err = task.Observe(fbstorage.StatusProgress, func(s fbstorage.Snapshot) {
		fmt.Printf("\r%5.1f%%  %d / %d bytes", 100*float64(s.BytesTransferred)/float64(max(s.TotalBytes, 1)), s.BytesTransferred, s.TotalBytes)
	})
	check(err)
	done, err := task.Wait(ctx)
	check(err)
	fmt.Println()

	fmt.Printf("uploaded %s: %d bytes, %s\n", reference, done.Metadata.Size, done.Metadata.ContentType)
	url, err := reference.DownloadURL(ctx)
	check(err)
	fmt.Println("download URL:", url)
	reference.Parent().Pages(ctx, 100)(func(page *fbstorage.ListResult, err error) bool {
		check(err)
		for _, item := range page.Items {
			fmt.Println(" ", item.FullPath())
		}
		return true
	})
}

func max(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
