'use strict';

// Confluent's JavaScript Schema Registry serdes (@confluentinc/schemaregistry,
// the serdes of confluent-kafka-javascript) against a registry, for the
// kafka module's interoperability test (kafka/serde/js_test.go):
//
//   node serdes.js read  REGISTRY_URL TOPIC   framed Avro records in, JSON out
//   node serdes.js write REGISTRY_URL TOPIC   JSON values in, framed Avro out
//   node serdes.js proto-write REGISTRY_URL TOPIC SET TYPE
//                                            protobuf bytes in, framed protobuf out
//
// One record a line: framed records as hex, values as JSON (the value of the
// record's schema as avsc holds it: records are objects, enums their symbol,
// unions of null and one type the value or null, longs numbers).
//
// read: AvroDeserializer (SerdeType.VALUE) of each record; the writer schema
// is fetched by the ID in the record's header. write: AvroSerializer with
// autoRegisterSchemas off and useLatestVersion on: the schema is the latest
// version of the subject "<TOPIC>-value" (TopicNameStrategy), the one
// protoavro registered. proto-write: ProtobufSerializer with
// autoRegisterSchemas on, its message type TYPE taken from the serialized
// FileDescriptorSet in the file SET (every file TYPE needs); each line is a
// message's protobuf bytes (hex), parsed and serialized: the serializer
// registers the file and its imports (but the ones it treats as built in) as
// base64 serialized FileDescriptorProtos, as Confluent's registry stores them.
// Errors go to stderr with the line number, exit 1.

const fs = require('fs');
const readline = require('readline');
const {
  SchemaRegistryClient, AvroSerializer, AvroDeserializer, ProtobufSerializer, SerdeType,
} = require('@confluentinc/schemaregistry');
const { createFileRegistry, fromBinary } = require('@bufbuild/protobuf');
const { FileDescriptorSetSchema } = require('@bufbuild/protobuf/wkt');

async function main() {
  const [mode, url, topic, setFile, typeName] = process.argv.slice(2);
  if (!['read', 'write', 'proto-write'].includes(mode) || !url || !topic ||
      (mode === 'proto-write' && (!setFile || !typeName))) {
    throw new Error('usage: node serdes.js read|write REGISTRY_URL TOPIC < lines\n' +
      '       node serdes.js proto-write REGISTRY_URL TOPIC SET TYPE < lines');
  }
  const client = new SchemaRegistryClient({ baseURLs: [url], maxRetries: 0 });
  let serde;
  let messageDesc;
  if (mode === 'read') {
    serde = new AvroDeserializer(client, SerdeType.VALUE, {});
  } else if (mode === 'write') {
    serde = new AvroSerializer(client, SerdeType.VALUE, { autoRegisterSchemas: false, useLatestVersion: true });
  } else {
    const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, fs.readFileSync(setFile)));
    messageDesc = registry.getMessage(typeName);
    if (messageDesc == null) throw new Error(`${setFile}: no message ${typeName}`);
    serde = new ProtobufSerializer(client, SerdeType.VALUE, { autoRegisterSchemas: true, registry });
  }
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === '') continue;
    try {
      if (mode === 'read') {
        const value = await serde.deserialize(topic, Buffer.from(line.trim(), 'hex'));
        process.stdout.write(JSON.stringify(value, jsonValue) + '\n');
      } else if (mode === 'write') {
        const framed = await serde.serialize(topic, JSON.parse(line));
        process.stdout.write(framed.toString('hex') + '\n');
      } else {
        const msg = fromBinary(messageDesc, Buffer.from(line.trim(), 'hex'));
        const framed = await serde.serialize(topic, msg);
        process.stdout.write(framed.toString('hex') + '\n');
      }
    } catch (e) {
      throw new Error(`line ${n}: ${e && e.stack ? e.stack : e}`);
    }
  }
}

// jsonValue writes bytes (Buffers) as hex strings.
function jsonValue(key, v) {
  if (v && v.type === 'Buffer' && Array.isArray(v.data)) return Buffer.from(v.data).toString('hex');
  return v;
}

main().catch((e) => {
  process.stderr.write(`serdes.js: ${e && e.message ? e.message : e}\n`);
  process.exit(1);
});
