// Package clidocs holds the test that README.md and docs/*.md name no
// command or flag that the commands (protoavro, protoavro-kafka,
// protoavro-beam, protoc-gen-avro) do not have. The commands' help (-h),
// built from their flag sets and usage strings, is the reference: a
// command line quoted in a code block or an inline code span of the
// documents is checked against the help of the command it runs.
package clidocs
