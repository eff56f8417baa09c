module github.com/protoavro/protoavro

go 1.26.0

require (
	github.com/bufbuild/protocompile v0.14.1
	github.com/golang/snappy v1.0.0
	github.com/klauspost/compress v1.20.3
	github.com/twmb/avro v1.9.1
	google.golang.org/protobuf v1.36.12
)

require golang.org/x/sync v0.23.0 // indirect
