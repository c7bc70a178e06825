// upload FILE [-bucket BUCKET] [-max-speed BYTES/S] — signs in anonymously, streams FILE to
// users/<uid>/<name> through an io.Writer with a progress line, streams it back through an
// io.Reader into a SHA-256 and checks its last KiB with a ranged read (constant memory, whatever
// the size; both ways capped at -max-speed), then prints its metadata, download URL and the
// user's folder. Ctrl-C cancels. FIREBASE_STORAGE_EMULATOR_HOST / FIREBASE_AUTH_EMULATOR_HOST
// select the emulator.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"

	"fbstorage"
)

func main() {
	bucket := flag.String("bucket", "demo-bucket", "the bucket")
	maxSpeed := flag.Int64("max-speed", 0, "cap uploads and downloads at this many bytes per second (0: none)")
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

	check(storage.SetMaxUploadSpeed(*maxSpeed))
	check(storage.SetMaxDownloadSpeed(*maxSpeed))

	reference, err := storage.Reference(fmt.Sprintf("users/%s/%s", user.UID, filepath.Base(file)))
	check(err)
	input, err := os.Open(file)
	check(err)
	defer input.Close()
	writer, err := reference.NewWriter(ctx, &fbstorage.MetadataChanges{Custom: map[string]string{"uploaded-by": "examples/go"}})
	check(err)
	_, err = writer.Task().Observe(fbstorage.StatusProgress, func(s fbstorage.Snapshot) {
		fmt.Printf("\r%d bytes sent", s.BytesTransferred)
	})
	check(err)
	local := sha256.New()
	if _, err := io.Copy(writer, io.TeeReader(input, local)); err != nil {
		writer.Abort(err)
		log.Fatal(err)
	}
	check(writer.Close())
	fmt.Println()
	metadata := writer.Metadata()

	reader, err := reference.NewReader(ctx)
	check(err)
	remote := sha256.New()
	_, err = io.Copy(remote, reader)
	check(err)
	check(reader.Close())
	if !bytes.Equal(local.Sum(nil), remote.Sum(nil)) {
		log.Fatal("the download differs from FILE")
	}
	tail, err := reference.Range(ctx, -1024, -1, 1024)
	check(err)
	stat, err := input.Stat()
	check(err)
	expected := make([]byte, len(tail))
	_, err = input.ReadAt(expected, stat.Size()-int64(len(tail)))
	check(err)
	if !bytes.Equal(tail, expected) {
		log.Fatal("the last KiB differs from FILE's")
	}
	fmt.Printf("read back %d bytes: SHA-256 %x, last %d bytes match\n", stat.Size(), remote.Sum(nil), len(tail))

	fmt.Printf("uploaded %s: %d bytes, %s\n", reference, metadata.Size, metadata.ContentType)
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

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
