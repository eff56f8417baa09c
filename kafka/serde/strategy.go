package serde

import (
	"fmt"
	"time"
)

// defaultTimeout bounds one registry request when no HTTP client is given.
const defaultTimeout = 10 * time.Second

// Strategy is a subject-name strategy of the Confluent serializers: how the
// subject a schema is registered under is named.
type Strategy int

const (
	// TopicName names the subject "<topic>-value" (or "-key"): one schema
	// lineage per topic. The default.
	TopicName Strategy = iota
	// RecordName names the subject after the record's full name: one
	// lineage per record type, shared by topics.
	RecordName
	// TopicRecordName names the subject "<topic>-<record full name>": one
	// lineage per record type and topic.
	TopicRecordName
)

// ParseStrategy accepts "topic", "record" and "topic-record" (and the
// Confluent class names TopicNameStrategy, RecordNameStrategy,
// TopicRecordNameStrategy).
func ParseStrategy(s string) (Strategy, error) {
	switch s {
	case "", "topic", "TopicNameStrategy":
		return TopicName, nil
	case "record", "RecordNameStrategy":
		return RecordName, nil
	case "topic-record", "TopicRecordNameStrategy":
		return TopicRecordName, nil
	}
	return 0, fmt.Errorf("serde: unknown subject-name strategy %q (want topic, record or topic-record)", s)
}

// String returns the name ParseStrategy accepts.
func (s Strategy) String() string {
	switch s {
	case TopicName:
		return "topic"
	case RecordName:
		return "record"
	case TopicRecordName:
		return "topic-record"
	}
	return fmt.Sprintf("Strategy(%d)", int(s))
}

// Subject returns the subject of a record of the given full name on topic,
// for the record's value or (key true) its key.
func (s Strategy) Subject(topic, fullName string, key bool) string {
	switch s {
	case RecordName:
		return fullName
	case TopicRecordName:
		return topic + "-" + fullName
	}
	if key {
		return topic + "-key"
	}
	return topic + "-value"
}
