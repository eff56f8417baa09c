// Java Avro side of protoavro's interoperability tests, for Apache Avro Java
// 1.8 (Debian libavro-java) and its Jackson 1.9. The tests compile it with
// javac and run it once per mode:
//
//   read FILE...             reads container files with GenericDatumReader and prints
//                            one line per file: {"file", "codec", "records"} or {"file", "error"}
//   write JOBS               writes container files with GenericDatumWriter; each line of
//                            JOBS is {"schema", "input", "output", "codec"}; prints
//                            {"output"} or {"output", "error"} per job
//   datums SCHEMA INPUT      reads single binary datums (INPUT lines: NAME HEX) with
//                            GenericDatumReader and SCHEMA; prints {"name", "consumed", "record"}
//   tojson SCHEMA INPUT      reads single binary datums (INPUT lines: NAME HEX) with
//                            GenericDatumReader and writes them with GenericDatumWriter to a
//                            JsonEncoder, as avro-tools tojson does; prints {"name", "json"}
//                            or {"name", "error"}
//   fromjson SCHEMA INPUT    reads JSON datums (INPUT lines: NAME JSON) with a JsonDecoder
//                            and GenericDatumReader, as avro-tools fromjson does; prints
//                            {"name", "hex"} of their binary encoding or {"name", "error"}
//   equal A B [A B]...       parses each pair of schema files (.avsc) and prints one line
//                            per pair: whether Schema.equals holds, as avro-tools cat and
//                            concat compare the schemas of their files ("true" or "false")
//   logical FILE             reads a container file of records with GenericDatumReader and
//                            prints one line per top-level field of each record:
//                            {"field", "logicalType", "value"}, the logical type Java Avro
//                            parsed from the field's schema (of the union branch the value
//                            is in; null when it knows none) and the value as Java read it
//   version                  prints Avro's and Java's versions
//
// Records are interop JSON (interop/value_test.go describes it).

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.io.JsonEncoder;
import org.codehaus.jackson.JsonNode;
import org.codehaus.jackson.map.ObjectMapper;

public class Interop {
  static final PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
  static final ObjectMapper mapper = new ObjectMapper();

  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "read":
        for (int i = 1; i < args.length; i++) read(args[i]);
        break;
      case "write":
        write(args[1]);
        break;
      case "datums":
        datums(args[1], args[2]);
        break;
      case "tojson":
        toJSON(args[1], args[2]);
        break;
      case "fromjson":
        fromJSON(args[1], args[2]);
        break;
      case "equal":
        for (int i = 1; i + 1 < args.length; i += 2) {
          Schema a = new Schema.Parser().parse(new File(args[i]));
          Schema b = new Schema.Parser().parse(new File(args[i + 1]));
          out.println(a.equals(b));
        }
        break;
      case "logical":
        logical(args[1]);
        break;
      case "version":
        out.println(Schema.class.getPackage().getImplementationVersion() + " (" + System.getProperty("java.vm.name") + " " + System.getProperty("java.version") + ")");
        break;
      default:
        throw new IllegalArgumentException(args[0]);
    }
    out.flush();
  }

  static void logical(String path) throws Exception {
    try (DataFileReader<Object> r = new DataFileReader<>(new File(path), new GenericDatumReader<Object>())) {
      while (r.hasNext()) {
        GenericRecord rec = (GenericRecord) r.next();
        for (Schema.Field f : rec.getSchema().getFields()) {
          Object v = rec.get(f.pos());
          Schema fs = f.schema();
          if (fs.getType() == Schema.Type.UNION) fs = fs.getTypes().get(GenericData.get().resolveUnion(fs, v));
          org.apache.avro.LogicalType lt = fs.getLogicalType();
          out.println("{\"field\":" + str(f.name()) + ",\"logicalType\":" + (lt == null ? "null" : str(lt.getName())) + ",\"value\":" + str(String.valueOf(v)) + "}");
        }
      }
    }
  }

  // answer prints {KEY: id, ...}: the fields that work returns (each after
  // a comma), or "error" with the exception it throws.
  static void answer(String key, String id, Callable<String> work) {
    StringBuilder sb = new StringBuilder("{").append(str(key)).append(':').append(str(id));
    try {
      sb.append(work.call());
    } catch (Exception e) {
      sb.append(",\"error\":").append(str(e.toString()));
    }
    out.println(sb.append('}'));
  }

  static void read(String path) {
    answer("file", path, () -> {
      StringBuilder sb = new StringBuilder();
      try (DataFileReader<Object> r = new DataFileReader<>(new File(path), new GenericDatumReader<Object>())) {
        Schema s = r.getSchema();
        String codec = r.getMetaString("avro.codec");
        sb.append(",\"codec\":").append(str(codec == null ? "null" : codec)).append(",\"records\":[");
        boolean first = true;
        while (r.hasNext()) {
          if (!first) sb.append(',');
          first = false;
          toInterop(sb, s, r.next());
        }
      }
      return sb.append(']').toString();
    });
  }

  static void write(String jobsFile) throws Exception {
    for (String line : lines(jobsFile)) {
      JsonNode job = mapper.readTree(line);
      String output = job.get("output").getTextValue();
      answer("output", output, () -> {
        Schema s = new Schema.Parser().parse(new File(job.get("schema").getTextValue()));
        try (DataFileWriter<Object> w = new DataFileWriter<>(new GenericDatumWriter<Object>(s))) {
          w.setCodec(CodecFactory.fromString(job.get("codec").getTextValue()));
          w.create(s, new File(output));
          for (String rec : lines(job.get("input").getTextValue())) {
            w.append(fromInterop(s, mapper.readTree(rec)));
          }
        }
        return "";
      });
    }
  }

  static void datums(String schemaFile, String input) throws Exception {
    Schema s = new Schema.Parser().parse(new File(schemaFile));
    for (String line : lines(input)) {
      String[] f = line.split(" ");
      BinaryDecoder d = DecoderFactory.get().binaryDecoder(hex(f[1]), null);
      Object v = new GenericDatumReader<Object>(s, s).read(null, d);
      StringBuilder sb = new StringBuilder("{\"name\":").append(str(f[0])).append(",\"consumed\":").append(d.isEnd()).append(",\"record\":");
      toInterop(sb, s, v);
      out.println(sb.append('}'));
    }
  }

  static void toJSON(String schemaFile, String input) throws Exception {
    Schema s = new Schema.Parser().parse(new File(schemaFile));
    for (String line : lines(input)) {
      String[] f = line.split(" ");
      answer("name", f[0], () -> {
        BinaryDecoder d = DecoderFactory.get().binaryDecoder(hex(f[1]), null);
        Object v = new GenericDatumReader<Object>(s).read(null, d);
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        JsonEncoder e = EncoderFactory.get().jsonEncoder(s, b);
        new GenericDatumWriter<Object>(s).write(v, e);
        e.flush();
        return ",\"json\":" + str(b.toString("UTF-8"));
      });
    }
  }

  static void fromJSON(String schemaFile, String input) throws Exception {
    Schema s = new Schema.Parser().parse(new File(schemaFile));
    for (String line : lines(input)) {
      int sp = line.indexOf(' ');
      answer("name", line.substring(0, sp), () -> {
        Object v = new GenericDatumReader<Object>(s).read(null, DecoderFactory.get().jsonDecoder(s, line.substring(sp + 1)));
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        BinaryEncoder e = EncoderFactory.get().binaryEncoder(b, null);
        new GenericDatumWriter<Object>(s).write(v, e);
        e.flush();
        StringBuilder h = new StringBuilder();
        for (byte x : b.toByteArray()) h.append(String.format("%02x", x & 0xff));
        return ",\"hex\":\"" + h + '"';
      });
    }
  }

  static byte[] hex(String h) {
    byte[] b = new byte[h.length() / 2];
    for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
    return b;
  }

  static List<String> lines(String path) throws Exception {
    List<String> out = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(new FileInputStream(path), StandardCharsets.UTF_8))) {
      for (String l; (l = r.readLine()) != null; ) if (!l.isEmpty()) out.add(l);
    }
    return out;
  }

  static Schema branch(Schema u) {
    List<Schema> ts = u.getTypes();
    if (ts.size() != 2 || ts.get(0).getType() != Schema.Type.NULL) throw new IllegalArgumentException("union is not [null, T]: " + u);
    return ts.get(1);
  }

  static boolean isDecimal(Schema s) {
    return s.getLogicalType() instanceof LogicalTypes.Decimal;
  }

  // toInterop appends the interop JSON of datum v of schema s.
  static void toInterop(StringBuilder sb, Schema s, Object v) {
    switch (s.getType()) {
      case UNION:
        if (v == null) sb.append("null");
        else toInterop(sb, branch(s), v);
        return;
      case RECORD: {
        GenericRecord r = (GenericRecord) v;
        sb.append('{');
        boolean first = true;
        for (Schema.Field f : s.getFields()) {
          if (!first) sb.append(',');
          first = false;
          sb.append(str(f.name())).append(':');
          toInterop(sb, f.schema(), r.get(f.name()));
        }
        sb.append('}');
        return;
      }
      case ARRAY: {
        sb.append('[');
        boolean first = true;
        for (Object e : (Iterable<?>) v) {
          if (!first) sb.append(',');
          first = false;
          toInterop(sb, s.getElementType(), e);
        }
        sb.append(']');
        return;
      }
      case MAP: {
        sb.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
          if (!first) sb.append(',');
          first = false;
          sb.append(str(e.getKey().toString())).append(':');
          toInterop(sb, s.getValueType(), e.getValue());
        }
        sb.append('}');
        return;
      }
      case ENUM:
      case STRING:
        sb.append(str(v.toString()));
        return;
      case NULL:
        sb.append("null");
        return;
      case BOOLEAN:
        sb.append(((Boolean) v).booleanValue());
        return;
      case INT:
        sb.append(((Integer) v).intValue());
        return;
      case LONG:
        sb.append(((Long) v).longValue());
        return;
      case FLOAT:
        sb.append(num(((Float) v).floatValue()));
        return;
      case DOUBLE:
        sb.append(num(((Double) v).doubleValue()));
        return;
      case BYTES: {
        ByteBuffer bb = ((ByteBuffer) v).duplicate();
        byte[] b = new byte[bb.remaining()];
        bb.get(b);
        if (isDecimal(s)) {
          int scale = ((LogicalTypes.Decimal) s.getLogicalType()).getScale();
          sb.append(str(b.length == 0 ? "0" : new BigDecimal(new BigInteger(b), scale).toPlainString()));
          return;
        }
        sb.append('"');
        for (byte x : b) sb.append(Character.forDigit((x >> 4) & 15, 16)).append(Character.forDigit(x & 15, 16));
        sb.append('"');
        return;
      }
      default:
        throw new IllegalArgumentException("unexpected schema " + s);
    }
  }

  // num prints a double exactly: its full decimal expansion.
  static String num(double d) {
    if (Double.isNaN(d)) return "\"NaN\"";
    if (Double.isInfinite(d)) return d > 0 ? "\"Infinity\"" : "\"-Infinity\"";
    if (d == 0) return (1 / d < 0) ? "-0.0" : "0.0";
    return new BigDecimal(d).toString();
  }

  static String str(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') sb.append('\\').append(c);
      else if (c < 0x20 || c > 0x7e) sb.append(String.format("\\u%04x", (int) c));
      else sb.append(c);
    }
    return sb.append('"').toString();
  }

  // fromInterop returns the datum for GenericDatumWriter of interop JSON j.
  static Object fromInterop(Schema s, JsonNode j) {
    switch (s.getType()) {
      case UNION:
        return j.isNull() ? null : fromInterop(branch(s), j);
      case RECORD: {
        GenericData.Record r = new GenericData.Record(s);
        for (Schema.Field f : s.getFields()) r.put(f.name(), fromInterop(f.schema(), j.get(f.name())));
        return r;
      }
      case ARRAY: {
        List<Object> l = new GenericData.Array<>(j.size(), s);
        for (JsonNode e : j) l.add(fromInterop(s.getElementType(), e));
        return l;
      }
      case MAP: {
        Map<String, Object> m = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = j.getFields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          m.put(e.getKey(), fromInterop(s.getValueType(), e.getValue()));
        }
        return m;
      }
      case ENUM:
        return new GenericData.EnumSymbol(s, j.getTextValue());
      case STRING:
        return j.getTextValue();
      case NULL:
        return null;
      case BOOLEAN:
        return j.getBooleanValue();
      case INT:
        return Integer.valueOf(j.getBigIntegerValue().intValueExact());
      case LONG:
        return Long.valueOf(j.getBigIntegerValue().longValueExact());
      case FLOAT:
        return Float.valueOf((float) dbl(j));
      case DOUBLE:
        return Double.valueOf(dbl(j));
      case BYTES: {
        String t = j.getTextValue();
        if (isDecimal(s)) {
          int scale = ((LogicalTypes.Decimal) s.getLogicalType()).getScale();
          return ByteBuffer.wrap(new BigDecimal(t).setScale(scale).unscaledValue().toByteArray());
        }
        byte[] b = new byte[t.length() / 2];
        for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(t.substring(2 * i, 2 * i + 2), 16);
        return ByteBuffer.wrap(b);
      }
      default:
        throw new IllegalArgumentException("unexpected schema " + s);
    }
  }

  static double dbl(JsonNode j) {
    if (j.isTextual()) {
      switch (j.getTextValue()) {
        case "NaN": return Double.NaN;
        case "Infinity": return Double.POSITIVE_INFINITY;
        case "-Infinity": return Double.NEGATIVE_INFINITY;
      }
      throw new IllegalArgumentException("float " + j);
    }
    return Double.parseDouble(j.asText());
  }
}
