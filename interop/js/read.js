'use strict';

// Reads Avro container files with avsc and prints each file's records as
// interop JSON, one line per file: {"file": PATH, "codec": CODEC,
// "records": [...]} or {"file": PATH, "error": MESSAGE}.
//
// Usage: node read.js FILE...

const avro = require('avsc');
const { compile, typeOf, toInterop } = require('./interop_json');
const codecs = require('./codecs');

function readFile(path, decoders) {
  return new Promise((resolve) => {
    let node = null;
    let codec = null;
    const records = [];
    const fail = (err) => resolve(JSON.stringify({ file: path, error: String(err && err.stack ? err.message : err) }));
    avro
      .createFileDecoder(path, {
        codecs: decoders,
        parseHook: (schema) => {
          node = compile(schema);
          return typeOf(schema);
        },
      })
      .on('metadata', (type, c) => {
        codec = c;
      })
      .on('data', (v) => {
        try {
          records.push(toInterop(node, v));
        } catch (err) {
          fail(err);
        }
      })
      .on('error', fail)
      .on('end', () => resolve('{"file":' + JSON.stringify(path) + ',"codec":' + JSON.stringify(codec) + ',"records":[' + records.join(',') + ']}'));
  });
}

codecs.load(async ({ decoders }) => {
  for (const path of process.argv.slice(2)) {
    process.stdout.write((await readFile(path, decoders)) + '\n');
  }
});
