package protoavro

import (
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Full names of the well-known types with a dedicated mapping under the
// default profile. Every other well-known type (Duration, Struct, Value,
// ListValue, Any, Empty, FieldMask) maps like any message: a record that
// carries its fields exactly. The google.type messages with a mapping of
// their own (Options.GoogleTypes) are named here too.
const (
	timestampName protoreflect.FullName = "google.protobuf.Timestamp"
	dateName      protoreflect.FullName = "google.type.Date"
	timeOfDayName protoreflect.FullName = "google.type.TimeOfDay"
	decimalName   protoreflect.FullName = "google.type.Decimal"
)

// wrapperNames are the nine google/protobuf/wrappers.proto messages.
var wrapperNames = map[protoreflect.FullName]bool{
	"google.protobuf.DoubleValue": true,
	"google.protobuf.FloatValue":  true,
	"google.protobuf.Int64Value":  true,
	"google.protobuf.UInt64Value": true,
	"google.protobuf.Int32Value":  true,
	"google.protobuf.UInt32Value": true,
	"google.protobuf.BoolValue":   true,
	"google.protobuf.StringValue": true,
	"google.protobuf.BytesValue":  true,
}

// wellKnownKind classifies a message descriptor for the default profile.
type wellKnownKind uint8

const (
	notWellKnown wellKnownKind = iota
	wellKnownTimestamp
	wellKnownWrapper
	googleDate      // google.type.Date
	googleTimeOfDay // google.type.TimeOfDay
)

// classifyWellKnown reports whether md is a well-known type with a dedicated
// mapping, checking its shape as well as its name.
func classifyWellKnown(md protoreflect.MessageDescriptor) wellKnownKind {
	name := md.FullName()
	if name == timestampName {
		f := md.Fields()
		s, n := f.ByNumber(1), f.ByNumber(2)
		if f.Len() == 2 && s != nil && s.Kind() == protoreflect.Int64Kind && n != nil && n.Kind() == protoreflect.Int32Kind {
			return wellKnownTimestamp
		}
		return notWellKnown
	}
	if wrapperNames[name] {
		f := md.Fields()
		if v := f.ByNumber(1); f.Len() == 1 && v != nil && v.Cardinality() != protoreflect.Repeated && v.Message() == nil {
			return wellKnownWrapper
		}
	}
	return notWellKnown
}

// classifyGoogleType reports whether md is a google.type message with a
// mapping of its own (Options.GoogleTypes), checking its shape as well as
// its name: Date and TimeOfDay as messages of singular int32 fields 1 to 3
// and 1 to 4, and Decimal as a wrapper of its string.
func classifyGoogleType(md protoreflect.MessageDescriptor) wellKnownKind {
	int32s := func(n int) bool {
		f := md.Fields()
		if f.Len() != n {
			return false
		}
		for i := 1; i <= n; i++ {
			fd := f.ByNumber(protoreflect.FieldNumber(i))
			if fd == nil || fd.Kind() != protoreflect.Int32Kind || fd.Cardinality() == protoreflect.Repeated || fd.ContainingOneof() != nil {
				return false
			}
		}
		return true
	}
	switch md.FullName() {
	case dateName:
		if int32s(3) {
			return googleDate
		}
	case timeOfDayName:
		if int32s(4) {
			return googleTimeOfDay
		}
	case decimalName:
		f := md.Fields()
		if v := f.ByNumber(1); f.Len() == 1 && v != nil && v.Kind() == protoreflect.StringKind && v.Cardinality() != protoreflect.Repeated && v.ContainingOneof() == nil {
			return wellKnownWrapper
		}
	}
	return notWellKnown
}

// The google.type.Date and TimeOfDay conversions (Options.GoogleTypes).
// Their fields are int32s, numbered from 1: year, month, day; hours,
// minutes, seconds, nanos.

// civilDays returns the days since 1970-01-01 of a whole date of the
// proleptic Gregorian calendar, years 1 to 9999 as google.type.Date allows
// them, or false for a partial date (a 0) or an invalid one.
func civilDays(y, m, d int64) (int64, bool) {
	if y < 1 || y > 9999 || m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m) {
		return 0, false
	}
	// Howard Hinnant's days_from_civil, for years from 1.
	if m <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468, true
}

// daysInMonth returns the number of days of month m of year y.
func daysInMonth(y, m int64) int64 {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// Days since 1970-01-01 of the first and last google.type.Date.
const (
	minCivilDays = -719162 // 0001-01-01
	maxCivilDays = 2932896 // 9999-12-31
)

// civilFromDays is the inverse of civilDays, for days within
// [minCivilDays, maxCivilDays].
func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := z / 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	y = yoe + era*400
	if m <= 2 {
		y++
	}
	return y, m, d
}

// microsPerDay is the number of microseconds of a day: time-micros values
// lie in [0, microsPerDay).
const microsPerDay = 86_400_000_000

// timeOfDayMicros returns the microseconds since midnight of a TimeOfDay,
// whether nanoseconds below the microsecond were rounded down, and false
// for a value outside 00:00:00 to 23:59:59.999999999 (24:00:00 and leap
// seconds, which TimeOfDay lets an API allow, included: time-micros has
// no place for them).
func timeOfDayMicros(h, m, s, n int64) (int64, bool, bool) {
	if h < 0 || h > 23 || m < 0 || m > 59 || s < 0 || s > 59 || n < 0 || n > 999_999_999 {
		return 0, false, false
	}
	return ((h*60+m)*60+s)*1_000_000 + n/1000, n%1000 != 0, true
}

// appendCivil writes a Date as int date or a TimeOfDay as long time-micros
// from its fields (f[0] is field 1), counting a TimeOfDay rounded below
// the microsecond.
func (st *encState) appendCivil(dst []byte, v *valuePlan, f *[4]int64) ([]byte, error) {
	if v.kind == vDate {
		days, ok := civilDays(f[0], f[1], f[2])
		if !ok {
			return dst, dataErr(ErrOutOfRange, 0, "google.type.Date of year %d, month %d, day %d is not a whole date of years 1 to 9999, which the Avro date holds (partial dates need Options.GoogleTypes off: docs/mapping.md)", f[0], f[1], f[2])
		}
		return appendLong(dst, days), nil
	}
	us, rounded, ok := timeOfDayMicros(f[0], f[1], f[2], f[3])
	if !ok {
		return dst, dataErr(ErrOutOfRange, 0, "google.type.TimeOfDay %d:%d:%d and %d nanos is outside 00:00:00 to 23:59:59.999999999, which time-micros holds (24:00:00 and leap seconds need Options.GoogleTypes off: docs/mapping.md)", f[0], f[1], f[2], f[3])
	}
	if rounded {
		st.rounded++
	}
	return appendLong(dst, us), nil
}
