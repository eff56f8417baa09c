'use strict';

// Block codecs for avsc beyond its built-in null and deflate: snappy (the
// Avro framing: raw snappy, then the CRC-32 of the uncompressed data, big
// endian) with snappyjs, and zstandard with zstd-codec (zstd compiled to
// WebAssembly). Both are pure JavaScript packages from npm.

const zlib = require('zlib');
const snappy = require('snappyjs');
const { ZstdCodec } = require('zstd-codec');

const CRC_TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

function crc32(buf) {
  let c = -1;
  for (let i = 0; i < buf.length; i++) c = CRC_TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

// load calls back with {decoders, encoders} for avsc's codecs options.
function load(cb) {
  ZstdCodec.run((zstd) => {
    const simple = new zstd.Simple();
    const streaming = new zstd.Streaming();
    const decoders = {
      null: (buf, done) => done(null, buf),
      deflate: zlib.inflateRaw,
      snappy: (buf, done) => {
        try {
          const out = Buffer.from(snappy.uncompress(buf.subarray(0, buf.length - 4)));
          if (crc32(out) !== buf.readUInt32BE(buf.length - 4)) throw new Error('snappy block checksum mismatch');
          done(null, out);
        } catch (err) {
          done(err);
        }
      },
      zstandard: (buf, done) => {
        const out = streaming.decompress(new Uint8Array(buf));
        done(out ? null : new Error('zstandard decompression failed'), out && Buffer.from(out));
      },
    };
    const encoders = {
      null: (buf, done) => done(null, buf),
      deflate: zlib.deflateRaw,
      snappy: (buf, done) => {
        const c = Buffer.from(snappy.compress(buf));
        const sum = Buffer.alloc(4);
        sum.writeUInt32BE(crc32(buf), 0);
        done(null, Buffer.concat([c, sum]));
      },
      zstandard: (buf, done) => {
        const out = simple.compress(new Uint8Array(buf), 3);
        done(out ? null : new Error('zstandard compression failed'), out && Buffer.from(out));
      },
    };
    cb({ decoders, encoders });
  });
}

module.exports = { load };
