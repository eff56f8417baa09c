'use strict';

// Writes Avro container files with avsc from interop JSON records. Each line
// of JOBS is {"schema": AVSC, "input": JSONL, "output": PATH, "codec": CODEC};
// INPUT has one record per line. Prints one line per job: {"output": PATH}
// or {"output": PATH, "error": MESSAGE}.
//
// Usage: node write.js JOBS

const fs = require('fs');
const avro = require('avsc');
const { compile, typeOf, fromInterop, parseJSON } = require('./interop_json');
const codecs = require('./codecs');

function writeFile(job, encoders) {
  return new Promise((resolve) => {
    const done = (err) => resolve(JSON.stringify(err ? { output: job.output, error: String(err.message || err) } : { output: job.output }));
    try {
      const schema = JSON.parse(fs.readFileSync(job.schema, 'utf8'));
      const node = compile(schema);
      const type = typeOf(schema);
      const lines = fs.readFileSync(job.input, 'utf8').split('\n').filter((l) => l !== '');
      const values = lines.map((l) => fromInterop(node, parseJSON(l)));
      const enc = new avro.streams.BlockEncoder(type, { codec: job.codec, codecs: encoders, blockSize: 4096 });
      const out = fs.createWriteStream(job.output);
      enc.on('error', done);
      out.on('error', done);
      out.on('finish', () => done(null));
      enc.pipe(out);
      for (const v of values) enc.write(v);
      enc.end();
    } catch (err) {
      done(err);
    }
  });
}

codecs.load(async ({ encoders }) => {
  const jobs = fs.readFileSync(process.argv[2], 'utf8').split('\n').filter((l) => l !== '');
  for (const line of jobs) {
    process.stdout.write((await writeFile(JSON.parse(line), encoders)) + '\n');
  }
});
