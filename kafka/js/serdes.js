'use strict';

// Confluent's JavaScript Schema Registry serdes (@confluentinc/schemaregistry,
// the serdes of confluent-kafka-javascript) against a registry, for the
// kafka module's interoperability test (kafka/serde/js_test.go):
//
//   node serdes.js read  REGISTRY_URL TOPIC   framed Avro records in, JSON out
//   node serdes.js write REGISTRY_URL TOPIC   JSON values in, framed Avro out
//
// One record a line: framed records as hex, values as JSON (the value of the
// record's schema as avsc holds it: records are objects, enums their symbol,
// unions of null and one type the value or null, longs numbers).
//
// read: AvroDeserializer (SerdeType.VALUE) of each record; the writer schema
// is fetched by the ID in the record's header. write: AvroSerializer with
// autoRegisterSchemas off and useLatestVersion on: the schema is the latest
// version of the subject "<TOPIC>-value" (TopicNameStrategy), the one
// protoavro registered. Errors go to stderr with the line number, exit 1.

const readline = require('readline');
const {
  SchemaRegistryClient, AvroSerializer, AvroDeserializer, SerdeType,
} = require('@confluentinc/schemaregistry');

async function main() {
  const [mode, url, topic] = process.argv.slice(2);
  if (!['read', 'write'].includes(mode) || !url || !topic) {
    throw new Error('usage: node serdes.js read|write REGISTRY_URL TOPIC < lines');
  }
  const client = new SchemaRegistryClient({ baseURLs: [url], maxRetries: 0 });
  const serde = mode === 'read'
    ? new AvroDeserializer(client, SerdeType.VALUE, {})
    : new AvroSerializer(client, SerdeType.VALUE, { autoRegisterSchemas: false, useLatestVersion: true });
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === '') continue;
    try {
      if (mode === 'read') {
        const value = await serde.deserialize(topic, Buffer.from(line.trim(), 'hex'));
        process.stdout.write(JSON.stringify(value, jsonValue) + '\n');
      } else {
        const framed = await serde.serialize(topic, JSON.parse(line));
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
