// Package testpb holds the Go code generated from the test protos in
// testdata/proto, one package per proto file:
//
//   - avro2147pb: testdata/proto/avro2147.proto (package protoavro.avro2147)
//   - kitchenpb: testdata/proto/kitchen/kitchen.proto (package protoavro.test.kitchen)
//   - legacypb: testdata/proto/legacy/legacy.proto (package protoavro.test.legacy),
//     and legacy/zerosize.proto (records that take no bytes although they
//     have fields)
//   - editionspb: testdata/proto/editions/editions.proto (package
//     protoavro.test.editions; edition 2023, with messages at the open,
//     hybrid and opaque API levels, set per message)
//   - third_party/otlppb/commonpb, resourcepb, tracepb, metricspb, logspb:
//     the OpenTelemetry protos vendored in third_party/opentelemetry-proto
//     (packages opentelemetry.proto.*.v1; see
//     third_party/opentelemetry-proto/README.md), their go_package overridden
//     by testpbgen.GoPackages. Generated from upstream's files, they are kept
//     apart (third_party/) from the code generated from the project's own
//     protos.
//
// The generated code is committed. Regenerate it after editing a proto with
//
//	go run ./internal/cmd/protogen
//
// from the repository root (or `go generate ./internal/testpb`); no protoc is
// needed. The evolution protos (testdata/proto/evolution/v1 and v2) are not
// generated: tests compile them at run time with protocompile.
package testpb

//go:generate go run github.com/protoavro/protoavro/internal/cmd/protogen -root ../..
