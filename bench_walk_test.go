package protoavro_test

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// wireWalker is the floor the transcoders are measured against: it walks
// protobuf bytes as a transcoder must, reading every tag and value and
// descending into nested messages by their descriptors, and produces nothing
// but a count. A transcoder does this walk plus its output.
type wireWalker struct {
	root *walkMessage
	msgs map[protoreflect.FullName]*walkMessage
	// fields counts the fields seen, so that the walk has a result.
	fields int
}

// walkMessage is a message's fields by number: whether the field holds a
// message, and that message's plan.
type walkMessage struct {
	byNumber []*walkMessage
	isMsg    []bool
}

func newWireWalker(md protoreflect.MessageDescriptor) *wireWalker {
	w := &wireWalker{msgs: map[protoreflect.FullName]*walkMessage{}}
	w.root = w.plan(md)
	return w
}

// plan returns the walk plan of md, building it and those of the messages it
// holds once.
func (w *wireWalker) plan(md protoreflect.MessageDescriptor) *walkMessage {
	if m, ok := w.msgs[md.FullName()]; ok {
		return m
	}
	m := &walkMessage{}
	w.msgs[md.FullName()] = m
	fields := md.Fields()
	maxNum := 0
	for i := range fields.Len() {
		maxNum = max(maxNum, int(fields.Get(i).Number()))
	}
	m.byNumber = make([]*walkMessage, maxNum+1)
	m.isMsg = make([]bool, maxNum+1)
	for i := range fields.Len() {
		fd := fields.Get(i)
		// A map's entries are messages too (fd.Message() is the entry).
		if fd.Kind() == protoreflect.MessageKind {
			m.isMsg[fd.Number()] = true
			m.byNumber[fd.Number()] = w.plan(fd.Message())
		}
	}
	return m
}

// walk reads the message b under plan m.
func (w *wireWalker) walk(m *walkMessage, b []byte) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		w.fields++
		if typ == protowire.BytesType && int(num) < len(m.isMsg) && m.isMsg[num] {
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			if err := w.walk(m.byNumber[num], v); err != nil {
				return err
			}
			b = b[n:]
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
	}
	return nil
}

// walkOp returns a benchmark operation that walks wire, the encoding of the
// walker's root message.
func (w *wireWalker) walkOp(wire []byte) func() error {
	return func() error {
		before := w.fields
		if err := w.walk(w.root, wire); err != nil {
			return err
		}
		if w.fields == before && len(wire) > 0 {
			return fmt.Errorf("walk saw no field in %d bytes", len(wire))
		}
		return nil
	}
}
