module github.com/protoavro/protoavro/bench

go 1.26

require (
	github.com/hamba/avro/v2 v2.31.0
	github.com/linkedin/goavro/v2 v2.15.0
	github.com/protoavro/protoavro v0.1.0
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/go-viper/mapstructure/v2 v2.4.0 // indirect
	github.com/golang/snappy v1.0.0 // indirect
	github.com/json-iterator/go v1.1.12 // indirect
	github.com/klauspost/compress v1.18.4 // indirect
	github.com/modern-go/concurrent v0.0.0-20180306012644-bacd9c7ef1dd // indirect
	github.com/modern-go/reflect2 v1.0.2 // indirect
	github.com/twmb/avro v1.9.1 // indirect
)
