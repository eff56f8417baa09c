// Writes the .proto files that Confluent's serializers treat as built in
// (never registered as schema references: confluent/meta.proto,
// confluent/type/decimal.proto and google/type/*.proto) as a serialized
// FileDescriptorSet, from the descriptors @confluentinc/schemaregistry ships
// (the google/protobuf/*.proto files are protocompile's standard imports and
// are left out). Output: kafka/serde/knowntypes.binpb, which serde embeds
// (or the file named by the argument; serde's TestKnownTypesUpToDate
// compares the two).
//
//   npm ci --prefix kafka/js && node kafka/js/knowntypes.js
const fs = require('fs');
const path = require('path');
const { create, toBinary } = require('@bufbuild/protobuf');
const { FileDescriptorSetSchema } = require('@bufbuild/protobuf/wkt');
const dist = path.join(__dirname, 'node_modules/@confluentinc/schemaregistry/dist');
const files = [];
const seen = new Set();
function add(desc) {
  if (seen.has(desc.proto.name) || desc.proto.name.startsWith('google/protobuf/')) return;
  desc.dependencies.forEach(add); // dependencies first
  // The import path Confluent documents (package confluent.type), which
  // the serializers' list of built-in files names; the package ships the
  // descriptor as confluent/types/decimal.proto.
  if (desc.proto.name === 'confluent/types/decimal.proto') desc.proto.name = 'confluent/type/decimal.proto';
  seen.add(desc.proto.name);
  files.push(desc.proto);
}
for (const [dir, names] of [['confluent', ['meta_pb']], ['confluent/types', ['decimal_pb']],
  ['google/type', fs.readdirSync(path.join(dist, 'google/type')).filter((f) => f.endsWith('_pb.js')).sort().map((f) => f.slice(0, -3))]]) {
  for (const name of names) {
    const mod = require(path.join(dist, dir, name));
    for (const [key, value] of Object.entries(mod)) {
      if (key.startsWith('file_') && value.kind === 'file') add(value);
    }
  }
}
const out = process.argv[2] || path.join(__dirname, '../serde/knowntypes.binpb');
fs.writeFileSync(out, toBinary(FileDescriptorSetSchema, create(FileDescriptorSetSchema, { file: files })));
console.log(files.map((f) => f.name).join('\n'));
