"""Reads Avro container files with Python's avro library and prints each
file's records as interop JSON, one line per file:
{"file": PATH, "codec": CODEC, "records": [...]} or {"file": PATH, "error": MESSAGE}.

Usage: read.py FILE...
"""

import json
import sys
import warnings

import avro.datafile
import avro.io

from interop_json import to_interop


def main():
    warnings.simplefilter("ignore")  # unknown logical types, e.g. timestamp-nanos
    for path in sys.argv[1:]:
        try:
            with open(path, "rb") as f:
                r = avro.datafile.DataFileReader(f, avro.io.DatumReader())
                schema = r.datum_reader.writers_schema
                records = [to_interop(schema, d) for d in r]
                out = {"file": path, "codec": r.codec, "records": records}
        except Exception as e:  # report it per file and go on
            out = {"file": path, "error": "%s: %s" % (type(e).__name__, e)}
        sys.stdout.write(json.dumps(out, allow_nan=False) + "\n")


if __name__ == "__main__":
    main()
