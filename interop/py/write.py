"""Writes Avro container files with Python's avro library from interop JSON
records. Each line of JOBS is {"schema": AVSC, "input": JSONL, "output": PATH,
"codec": CODEC}; INPUT has one record per line. Prints one line per job:
{"output": PATH} or {"output": PATH, "error": MESSAGE}.

Usage: write.py JOBS
"""

import json
import sys
import warnings

import avro.datafile
import avro.io
import avro.schema

from interop_json import from_interop


def main():
    warnings.simplefilter("ignore")
    with open(sys.argv[1]) as jobs:
        for line in jobs:
            job = json.loads(line)
            out = {"output": job["output"]}
            try:
                with open(job["schema"]) as f:
                    schema = avro.schema.parse(f.read())
                with open(job["output"], "wb") as f:
                    w = avro.datafile.DataFileWriter(f, avro.io.DatumWriter(), schema, codec=job["codec"])
                    with open(job["input"]) as records:
                        for rec in records:
                            w.append(from_interop(schema, json.loads(rec)))
                    w.close()
            except Exception as e:
                out["error"] = "%s: %s" % (type(e).__name__, e)
            sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
