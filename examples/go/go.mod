module fbstorage-upload-example

go 1.19

require fbstorage v0.0.0

replace fbstorage => ../../bindings/go/fbstorage
