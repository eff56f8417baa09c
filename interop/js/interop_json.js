'use strict';

// Interop JSON for avsc: a JSON form of Avro values, directed by the schema,
// that protoavro's interoperability tests compare (interop/value_test.go
// describes it). Longs are BigInts throughout (see longType), so 64-bit
// values stay exact. Decimal scales other than 0 are not needed: protoavro's
// decimals have scale 0.

const avro = require('avsc');

// longType reads and writes Avro longs as BigInts: avsc's default long type
// only holds safe integers (±2^53).
const longType = avro.types.LongType.__with({
  fromBuffer: (buf) => buf.readBigInt64LE(0),
  toBuffer: (n) => {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(BigInt(n), 0);
    return buf;
  },
  fromJSON: (v) => BigInt(v),
  toJSON: (n) => Number(n),
  isValid: (n) => typeof n === 'bigint' && n >= -(2n ** 63n) && n < 2n ** 63n,
  compare: (a, b) => (a === b ? 0 : a < b ? -1 : 1),
});

// Logical types, registered the way avsc's documentation shows, so that
// avsc keeps them in the schemas it writes. Timestamps stay BigInts in their
// unit (a Date has milliseconds only); decimals are BigInts of the unscaled
// value.

let pending = null; // the schema of a logical type whose underlying type is being built

class Timestamp extends avro.types.LogicalType {
  constructor(schema, opts) {
    pending = schema;
    try {
      super(schema, opts);
    } finally {
      pending = null;
    }
  }
  _fromValue(v) {
    return v;
  }
  _toValue(v) {
    return typeof v === 'bigint' ? v : undefined;
  }
  _resolve(type) {
    if (avro.Type.isType(type, 'abstract:long', 'logical:' + this._logicalTypeName)) return (v) => v;
  }
}

class Decimal extends avro.types.LogicalType {
  constructor(schema, opts) {
    super(schema, opts);
    this.precision = schema.precision;
    this.scale = schema.scale || 0;
  }
  _fromValue(buf) {
    return bytesToBigInt(buf);
  }
  _toValue(n) {
    return typeof n === 'bigint' ? bigIntToBytes(n) : undefined;
  }
  _resolve(type) {
    if (avro.Type.isType(type, 'logical:decimal') && type.scale === this.scale) return (v) => v;
  }
  _export(attrs) {
    attrs.precision = this.precision;
    if (this.scale) attrs.scale = this.scale;
  }
}

const LOGICAL_TYPES = {
  'timestamp-millis': Timestamp,
  'timestamp-micros': Timestamp,
  'timestamp-nanos': Timestamp,
  decimal: Decimal,
};

// typeOf returns avsc's type for a schema, with BigInt longs and the
// logical types above.
function typeOf(schema) {
  return avro.Type.forSchema(schema, {
    logicalTypes: LOGICAL_TYPES,
    typeHook: (s) => {
      const long = s === 'long' || (s && s.type === 'long' && (s === pending || !LOGICAL_TYPES[s.logicalType]));
      return long ? longType : undefined;
    },
  });
}

const PRIMITIVES = new Set(['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string']);

// compile turns a JSON schema into a tree of nodes with names resolved.
function compile(schema) {
  const names = new Map();
  const qualify = (name, ns) => (name.includes('.') || !ns ? name : ns + '.' + name);
  const nsOf = (full) => (full.includes('.') ? full.slice(0, full.lastIndexOf('.')) : '');
  function walk(s, ns) {
    if (typeof s === 'string') {
      if (PRIMITIVES.has(s)) return { t: s };
      const n = names.get(qualify(s, ns)) || names.get(s);
      if (!n) throw new Error('undefined name ' + s);
      return n;
    }
    if (Array.isArray(s)) return { t: 'union', types: s.map((b) => walk(b, ns)) };
    if (typeof s.type !== 'string' || (!PRIMITIVES.has(s.type) && !['record', 'error', 'enum', 'fixed', 'array', 'map'].includes(s.type))) {
      return walk(s.type, ns);
    }
    switch (s.type) {
      case 'record':
      case 'error': {
        const full = qualify(s.name, s.namespace !== undefined ? s.namespace : ns);
        const node = { t: 'record', name: full, fields: [] };
        names.set(full, node);
        for (const f of s.fields) node.fields.push({ name: f.name, type: walk(f.type, nsOf(full)) });
        return node;
      }
      case 'enum':
      case 'fixed': {
        const full = qualify(s.name, s.namespace !== undefined ? s.namespace : ns);
        const node = { t: s.type, name: full };
        names.set(full, node);
        return node;
      }
      case 'array':
        return { t: 'array', items: walk(s.items, ns) };
      case 'map':
        return { t: 'map', values: walk(s.values, ns) };
      default:
        return { t: s.type, logical: s.logicalType };
    }
  }
  return walk(schema, '');
}

function branch(u) {
  if (u.types.length !== 2 || u.types[0].t !== 'null') throw new Error('union is not [null, T]');
  return u.types[1];
}

function floatOut(x) {
  if (Number.isNaN(x)) return '"NaN"';
  if (x === Infinity) return '"Infinity"';
  if (x === -Infinity) return '"-Infinity"';
  if (Object.is(x, -0)) return '-0.0';
  return String(x); // the shortest form that reads back exactly
}

// Two's-complement big-endian bytes (the decimal logical type) and BigInts.
function bytesToBigInt(buf) {
  if (buf.length === 0) return 0n;
  let n = BigInt('0x' + buf.toString('hex'));
  if (buf[0] & 0x80) n -= 1n << BigInt(8 * buf.length);
  return n;
}

function bigIntToBytes(n) {
  let len = 1;
  while (n < -(1n << BigInt(8 * len - 1)) || n >= 1n << BigInt(8 * len - 1)) len++;
  const u = n < 0n ? n + (1n << BigInt(8 * len)) : n;
  return Buffer.from(u.toString(16).padStart(2 * len, '0'), 'hex');
}

// toInterop returns the interop JSON text of value v of node n.
function toInterop(n, v) {
  switch (n.t) {
    case 'union':
      return v === null ? 'null' : toInterop(branch(n), v);
    case 'record':
      return '{' + n.fields.map((f) => JSON.stringify(f.name) + ':' + toInterop(f.type, v[f.name])).join(',') + '}';
    case 'array':
      return '[' + v.map((e) => toInterop(n.items, e)).join(',') + ']';
    case 'map':
      return '{' + Object.keys(v).map((k) => JSON.stringify(k) + ':' + toInterop(n.values, v[k])).join(',') + '}';
    case 'enum':
    case 'string':
      return JSON.stringify(v);
    case 'null':
      return 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'int':
      return String(v);
    case 'long':
      if (typeof v !== 'bigint') throw new Error('long read as ' + typeof v);
      return v.toString();
    case 'float':
    case 'double':
      return floatOut(v);
    case 'bytes':
      if (n.logical === 'decimal') return JSON.stringify((typeof v === 'bigint' ? v : bytesToBigInt(v)).toString());
      return JSON.stringify(v.toString('hex'));
  }
  throw new Error('unexpected schema type ' + n.t);
}

// fromInterop returns the avsc value of interop JSON j (from parseJSON) of
// node n.
function fromInterop(n, j) {
  switch (n.t) {
    case 'union':
      return j === null ? null : fromInterop(branch(n), j);
    case 'record': {
      const out = {};
      for (const f of n.fields) out[f.name] = fromInterop(f.type, j[f.name]);
      return out;
    }
    case 'array':
      return j.map((e) => fromInterop(n.items, e));
    case 'map': {
      const out = {};
      for (const k of Object.keys(j)) out[k] = fromInterop(n.values, j[k]);
      return out;
    }
    case 'int':
      return Number(j);
    case 'long':
      return BigInt(j);
    case 'float':
    case 'double':
      if (j === 'NaN') return NaN;
      if (j === 'Infinity') return Infinity;
      if (j === '-Infinity') return -Infinity;
      return Number(j);
    case 'bytes':
      if (n.logical === 'decimal') return BigInt(j); // the Decimal logical type's value
      return Buffer.from(j, 'hex');
    default:
      return j; // null, boolean, string, enum
  }
}

// parseJSON parses JSON text like JSON.parse, but integers (numbers without
// a fraction or exponent) become BigInts, so that 64-bit values stay exact.
function parseJSON(text) {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const fail = () => {
    throw new SyntaxError('bad JSON at offset ' + i);
  };
  function value() {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const o = {};
      ws();
      if (text[i] === '}') {
        i++;
        return o;
      }
      for (;;) {
        ws();
        const k = str();
        ws();
        if (text[i++] !== ':') fail();
        o[k] = value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i++] === '}') return o;
        else fail();
      }
    }
    if (c === '[') {
      i++;
      const a = [];
      ws();
      if (text[i] === ']') {
        i++;
        return a;
      }
      for (;;) {
        a.push(value());
        ws();
        if (text[i] === ',') i++;
        else if (text[i++] === ']') return a;
        else fail();
      }
    }
    if (c === '"') return str();
    for (const [lit, v] of [['true', true], ['false', false], ['null', null]]) {
      if (text.startsWith(lit, i)) {
        i += lit.length;
        return v;
      }
    }
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400));
    if (!m) fail();
    i += m[0].length;
    return m[2] === undefined && m[3] === undefined ? BigInt(m[0]) : Number(m[0]);
  }
  function str() {
    if (text[i] !== '"') fail();
    let j = i + 1;
    while (text[j] !== '"') {
      if (j >= text.length) fail();
      j += text[j] === '\\' ? 2 : 1;
    }
    const s = JSON.parse(text.slice(i, j + 1));
    i = j + 1;
    return s;
  }
  const v = value();
  ws();
  if (i !== text.length) fail();
  return v;
}

module.exports = { compile, typeOf, toInterop, fromInterop, parseJSON };
