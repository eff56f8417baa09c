package main

import (
	"errors"

	"github.com/protoavro/protoavro/protoavro/records"
)

// recordError reports a bad input record; see [records.Error].
type recordError = records.Error

// recordFormat is the format of the protobuf records that encode reads and
// decode writes.
type recordFormat int

const (
	// formatDelimited is length-delimited protobuf: each message's size as
	// a varint, then the message (protodelim, Java's writeDelimitedTo).
	formatDelimited recordFormat = iota
	// formatJSONL is JSON Lines: one protojson object per line.
	formatJSONL
)

// formatFlag is a --format flag.
type formatFlag struct {
	f recordFormat
	// set says that the flag was given.
	set bool
}

// String returns the format name.
func (f *formatFlag) String() string {
	if f.f == formatJSONL {
		return "jsonl"
	}
	return "delimited"
}

// Set parses a format name.
func (f *formatFlag) Set(v string) error {
	switch v {
	case "delimited":
		f.f = formatDelimited
	case "jsonl":
		f.f = formatJSONL
	default:
		return errors.New("want delimited or jsonl")
	}
	f.set = true
	return nil
}
