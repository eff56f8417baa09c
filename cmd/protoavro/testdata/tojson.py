"""Reads Avro container files with Python's avro library and prints each
record in the JSON encoding of the Avro specification, as avro-tools tojson
writes it, for the tests of "protoavro tojson": one line per file,
{"file": PATH, "records": [...]}.

Python avro decodes the records; this program only records which union
branch each value came from (read_union), keeps float values apart from
doubles (to print them with float precision), and reads logical types as
their underlying types, as avro-tools does. Bytes and fixed values become
strings of code points 0-255; NaN and infinities the strings "NaN",
"Infinity", "-Infinity".

Usage: tojson.py FILE...
"""

import json
import math
import struct
import sys

import avro.datafile
import avro.io
import avro.schema


class F32(float):
    """A float value (32 bits), printed with the fewest digits."""


class Tagged:
    def __init__(self, name, value):
        self.name, self.value = name, value


class TaggingReader(avro.io.DatumReader):
    def read_union(self, writers_schema, readers_schema, decoder):
        index = int(decoder.read_long())
        if index >= len(writers_schema.schemas):
            raise ValueError("union branch %d out of range" % index)
        s = writers_schema.schemas[index]
        value = self.read_data(s, s, decoder)
        if s.type == "null":
            return None
        name = s.fullname if s.type in ("record", "enum", "fixed", "error") else s.type
        return Tagged(name, value)

    def read_data(self, writers_schema, readers_schema, decoder):
        if writers_schema.type == "float":
            return F32(decoder.read_float())
        return super().read_data(writers_schema, readers_schema, decoder)


def strip_logical(v):
    if isinstance(v, dict):
        return {k: strip_logical(x) for k, x in v.items() if k != "logicalType"}
    if isinstance(v, list):
        return [strip_logical(x) for x in v]
    return v


def number(x, bits):
    if math.isnan(x):
        return '"NaN"'
    if math.isinf(x):
        return '"Infinity"' if x > 0 else '"-Infinity"'
    if bits == 64:
        return repr(x)
    for p in range(1, 18):
        s = "%.*g" % (p, x)
        try:
            if struct.unpack("<f", struct.pack("<f", float(s)))[0] == x:
                return s
        except OverflowError:  # rounded beyond the largest float
            pass
    return repr(x)


def dump(v):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, Tagged):
        return "{%s:%s}" % (json.dumps(v.name), dump(v.value))
    if isinstance(v, F32):
        return number(v, 32)
    if isinstance(v, float):
        return number(v, 64)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, bytes):
        return json.dumps("".join(chr(b) for b in v))
    if isinstance(v, dict):
        return "{" + ",".join("%s:%s" % (json.dumps(k), dump(x)) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(dump(x) for x in v) + "]"
    raise TypeError("unexpected value %r" % (v,))


def main():
    for path in sys.argv[1:]:
        with open(path, "rb") as f:
            r = avro.datafile.DataFileReader(f, TaggingReader())
            text = r.get_meta("avro.schema").decode("utf-8")
            r.datum_reader.writers_schema = avro.schema.parse(json.dumps(strip_logical(json.loads(text))))
            records = [dump(d) for d in r]
        sys.stdout.write('{"file":%s,"records":[%s]}\n' % (json.dumps(path), ",".join(records)))


if __name__ == "__main__":
    main()
