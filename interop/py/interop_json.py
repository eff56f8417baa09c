"""Interop JSON for Python's avro library: a JSON form of Avro values,
directed by the schema, that protoavro's interoperability tests compare
(interop/value_test.go describes it).

to_interop turns a datum as avro.io.DatumReader returns it into interop JSON;
from_interop turns interop JSON into a datum for avro.io.DatumWriter. Both
apply the logical types that the library applies itself (timestamp-millis and
timestamp-micros as datetime, decimal as decimal.Decimal), so those paths of
the library are exercised too.
"""

import datetime
import decimal
import math

import avro.schema
import avro.timezones

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=avro.timezones.utc)


def _branch(s):
    ts = s.schemas
    if len(ts) != 2 or ts[0].type != "null":
        raise ValueError("union %s is not [null, T]" % s)
    return ts[1]


def _micros(d):
    delta = d - EPOCH
    return (delta.days * 86400 + delta.seconds) * 1000000 + delta.microseconds


def _float_out(x):
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x  # json.dumps prints the shortest repr, exact; -0.0 stays -0.0


def _float_in(j):
    if isinstance(j, str):
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[j]
    return float(j)


def _convert(s, v, leaf):
    """Converts datum v of schema s: unions, records, arrays and maps here,
    every other type by leaf(type, logical type, value)."""
    if isinstance(s, avro.schema.UnionSchema):
        return None if v is None else _convert(_branch(s), v, leaf)
    t = s.type
    if t == "record":
        return {f.name: _convert(f.type, v[f.name], leaf) for f in s.fields}
    if t == "array":
        return [_convert(s.items, e, leaf) for e in v]
    if t == "map":
        return {k: _convert(s.values, e, leaf) for k, e in v.items()}
    return leaf(t, getattr(s, "logical_type", None), v)


def to_interop(s, d):
    return _convert(s, d, _leaf_to_interop)


def from_interop(s, j):
    return _convert(s, j, _leaf_from_interop)


def _leaf_to_interop(t, lt, d):
    if t == "enum":
        return d
    if t == "long" and isinstance(d, datetime.datetime):
        if lt == "timestamp-micros":
            return _micros(d)
        if lt == "timestamp-millis":
            return _micros(d) // 1000
        raise ValueError("datetime for logical type %s" % lt)
    if t in ("int", "long"):
        if not isinstance(d, int) or isinstance(d, bool):
            raise ValueError("%s: %r" % (t, d))
        return d
    if t in ("float", "double"):
        return _float_out(d)
    if t == "bytes":
        if isinstance(d, decimal.Decimal):
            return format(d, "f")
        return d.hex()
    if t in ("string", "boolean", "null"):
        return d
    raise ValueError("unexpected schema type %s" % t)


def _leaf_from_interop(t, lt, j):
    if t == "long" and lt == "timestamp-micros":
        return EPOCH + datetime.timedelta(microseconds=j)
    if t == "long" and lt == "timestamp-millis":
        return EPOCH + datetime.timedelta(milliseconds=j)
    if t in ("float", "double"):
        return _float_in(j)
    if t == "bytes":
        if lt == "decimal":
            return decimal.Decimal(j)
        return bytes.fromhex(j)
    return j  # int, long, string, boolean, null, enum
