module fbstorage

go 1.19
