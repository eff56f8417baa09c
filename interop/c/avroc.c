/*
 * Avro C side of protoavro's interoperability tests, built by the tests with
 * cc against Debian's libavro (libavro-dev) and jansson:
 *
 *   avroc read FILE...   reads container files with avro_file_reader and the
 *                        generic value API; prints one line per file:
 *                        {"file", "records"} or {"file", "error"}
 *   avroc write JOBS     writes container files with avro_file_writer; each line
 *                        of JOBS is {"schema", "input", "output", "codec"}, INPUT
 *                        has one interop JSON record per line; prints {"output"}
 *                        or {"output", "error"} per job
 *
 * Records are interop JSON (interop/value_test.go describes it). Avro C has
 * no logical types, so decimals are printed and read as plain bytes (hex).
 */

#include <avro.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	char *buf;
	size_t len, cap;
} sbuf;

static void put(sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		while (b->len + n + 1 > b->cap) b->cap = b->cap ? 2 * b->cap : 4096;
		b->buf = realloc(b->buf, b->cap);
	}
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = 0;
}

static void puts_(sbuf *b, const char *s) { put(b, s, strlen(s)); }

/* put_str appends a JSON string of n bytes of UTF-8 text (NULs included). */
static void put_str(sbuf *b, const char *s, size_t n)
{
	char esc[8];
	put(b, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = c;
			put(b, esc, 2);
		} else if (c < 0x20) {
			snprintf(esc, sizeof esc, "\\u%04x", c);
			put(b, esc, 6);
		} else {
			put(b, (const char *)&c, 1);
		}
	}
	put(b, "\"", 1);
}

static void put_double(sbuf *b, double d)
{
	char tmp[64];
	if (isnan(d)) {
		puts_(b, "\"NaN\"");
	} else if (isinf(d)) {
		puts_(b, d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
	} else if (d == 0) {
		puts_(b, signbit(d) ? "-0.0" : "0.0");
	} else {
		snprintf(tmp, sizeof tmp, "%.17g", d); /* reads back exactly */
		puts_(b, tmp);
	}
}

static int to_interop(sbuf *b, avro_value_t *v)
{
	char tmp[64];
	size_t n, i;
	switch (avro_value_get_type(v)) {
	case AVRO_NULL:
		puts_(b, "null");
		return 0;
	case AVRO_BOOLEAN: {
		int x;
		if (avro_value_get_boolean(v, &x)) return -1;
		puts_(b, x ? "true" : "false");
		return 0;
	}
	case AVRO_INT32: {
		int32_t x;
		if (avro_value_get_int(v, &x)) return -1;
		snprintf(tmp, sizeof tmp, "%d", x);
		puts_(b, tmp);
		return 0;
	}
	case AVRO_INT64: {
		int64_t x;
		if (avro_value_get_long(v, &x)) return -1;
		snprintf(tmp, sizeof tmp, "%lld", (long long)x);
		puts_(b, tmp);
		return 0;
	}
	case AVRO_FLOAT: {
		float x;
		if (avro_value_get_float(v, &x)) return -1;
		put_double(b, (double)x);
		return 0;
	}
	case AVRO_DOUBLE: {
		double x;
		if (avro_value_get_double(v, &x)) return -1;
		put_double(b, x);
		return 0;
	}
	case AVRO_STRING: {
		const char *s;
		if (avro_value_get_string(v, &s, &n)) return -1;
		put_str(b, s, n > 0 ? n - 1 : 0); /* n counts the terminating NUL */
		return 0;
	}
	case AVRO_BYTES: {
		const void *p;
		if (avro_value_get_bytes(v, &p, &n)) return -1;
		put(b, "\"", 1);
		for (i = 0; i < n; i++) {
			snprintf(tmp, sizeof tmp, "%02x", ((const unsigned char *)p)[i]);
			put(b, tmp, 2);
		}
		put(b, "\"", 1);
		return 0;
	}
	case AVRO_ENUM: {
		int x;
		if (avro_value_get_enum(v, &x)) return -1;
		const char *sym = avro_schema_enum_get(avro_value_get_schema(v), x);
		if (!sym) return -1;
		put_str(b, sym, strlen(sym));
		return 0;
	}
	case AVRO_RECORD: {
		if (avro_value_get_size(v, &n)) return -1;
		put(b, "{", 1);
		for (i = 0; i < n; i++) {
			avro_value_t f;
			const char *name;
			if (avro_value_get_by_index(v, i, &f, &name)) return -1;
			if (i) put(b, ",", 1);
			put_str(b, name, strlen(name));
			put(b, ":", 1);
			if (to_interop(b, &f)) return -1;
		}
		put(b, "}", 1);
		return 0;
	}
	case AVRO_ARRAY:
	case AVRO_MAP: {
		int map = avro_value_get_type(v) == AVRO_MAP;
		if (avro_value_get_size(v, &n)) return -1;
		put(b, map ? "{" : "[", 1);
		for (i = 0; i < n; i++) {
			avro_value_t e;
			const char *key = NULL;
			if (avro_value_get_by_index(v, i, &e, map ? &key : NULL)) return -1;
			if (i) put(b, ",", 1);
			if (map) {
				put_str(b, key, strlen(key));
				put(b, ":", 1);
			}
			if (to_interop(b, &e)) return -1;
		}
		put(b, map ? "}" : "]", 1);
		return 0;
	}
	case AVRO_UNION: {
		avro_value_t br;
		if (avro_value_get_current_branch(v, &br)) return -1;
		return to_interop(b, &br);
	}
	default:
		avro_set_error("unexpected value type %d", avro_value_get_type(v));
		return -1;
	}
}

static void read_file(const char *path)
{
	sbuf b = {0};
	avro_file_reader_t r;
	avro_schema_t ws = NULL;
	avro_value_iface_t *iface = NULL;
	avro_value_t v;
	int rc, n = 0, have_value = 0;
	puts_(&b, "{\"file\":");
	put_str(&b, path, strlen(path));
	if (avro_file_reader(path, &r)) goto fail;
	ws = avro_file_reader_get_writer_schema(r);
	iface = avro_generic_class_from_schema(ws);
	if (!iface || avro_generic_value_new(iface, &v)) goto fail_reader;
	have_value = 1;
	puts_(&b, ",\"records\":[");
	while ((rc = avro_file_reader_read_value(r, &v)) == 0) {
		if (n++) put(&b, ",", 1);
		if (to_interop(&b, &v)) goto fail_reader;
		avro_value_reset(&v);
	}
	if (rc != EOF) goto fail_reader;
	puts_(&b, "]}");
	avro_value_decref(&v);
	avro_value_iface_decref(iface);
	avro_schema_decref(ws);
	avro_file_reader_close(r);
	printf("%s\n", b.buf);
	free(b.buf);
	return;
fail_reader:
	if (have_value) avro_value_decref(&v);
	if (iface) avro_value_iface_decref(iface);
	if (ws) avro_schema_decref(ws);
	avro_file_reader_close(r);
fail:
	b.len = 0;
	puts_(&b, "{\"file\":");
	put_str(&b, path, strlen(path));
	puts_(&b, ",\"error\":");
	put_str(&b, avro_strerror(), strlen(avro_strerror()));
	puts_(&b, "}");
	printf("%s\n", b.buf);
	free(b.buf);
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int from_interop(avro_value_t *v, json_t *j)
{
	switch (avro_value_get_type(v)) {
	case AVRO_NULL:
		return avro_value_set_null(v);
	case AVRO_BOOLEAN:
		return avro_value_set_boolean(v, json_is_true(j));
	case AVRO_INT32:
		if (!json_is_integer(j)) break;
		return avro_value_set_int(v, (int32_t)json_integer_value(j));
	case AVRO_INT64:
		if (!json_is_integer(j)) break;
		return avro_value_set_long(v, (int64_t)json_integer_value(j));
	case AVRO_FLOAT:
	case AVRO_DOUBLE: {
		double d;
		if (json_is_number(j)) {
			d = json_number_value(j);
		} else if (json_is_string(j) && !strcmp(json_string_value(j), "NaN")) {
			d = NAN;
		} else if (json_is_string(j) && !strcmp(json_string_value(j), "Infinity")) {
			d = INFINITY;
		} else if (json_is_string(j) && !strcmp(json_string_value(j), "-Infinity")) {
			d = -INFINITY;
		} else {
			break;
		}
		if (avro_value_get_type(v) == AVRO_FLOAT) return avro_value_set_float(v, (float)d);
		return avro_value_set_double(v, d);
	}
	case AVRO_STRING: {
		if (!json_is_string(j)) break;
		size_t n = json_string_length(j);
		char *s = malloc(n + 1);
		memcpy(s, json_string_value(j), n + 1);
		/* the size counts the terminating NUL; NULs inside are kept */
		int rc = avro_value_set_string_len(v, s, n + 1);
		free(s);
		return rc;
	}
	case AVRO_BYTES: {
		if (!json_is_string(j)) break;
		const char *h = json_string_value(j);
		size_t n = json_string_length(j) / 2;
		unsigned char *p = malloc(n + 1);
		for (size_t i = 0; i < n; i++) {
			int hi = hexval(h[2 * i]), lo = hexval(h[2 * i + 1]);
			if (hi < 0 || lo < 0) {
				free(p);
				avro_set_error("bad hex");
				return -1;
			}
			p[i] = (unsigned char)(hi << 4 | lo);
		}
		int rc = avro_value_set_bytes(v, p, n);
		free(p);
		return rc;
	}
	case AVRO_ENUM: {
		if (!json_is_string(j)) break;
		int idx = avro_schema_enum_get_by_name(avro_value_get_schema(v), json_string_value(j));
		if (idx < 0) break;
		return avro_value_set_enum(v, idx);
	}
	case AVRO_RECORD: {
		size_t n;
		if (!json_is_object(j) || avro_value_get_size(v, &n)) break;
		for (size_t i = 0; i < n; i++) {
			avro_value_t f;
			const char *name;
			json_t *fj;
			if (avro_value_get_by_index(v, i, &f, &name)) return -1;
			if (!(fj = json_object_get(j, name))) {
				avro_set_error("no field %s", name);
				return -1;
			}
			if (from_interop(&f, fj)) return -1;
		}
		return 0;
	}
	case AVRO_ARRAY: {
		size_t i;
		json_t *e;
		if (!json_is_array(j)) break;
		json_array_foreach(j, i, e) {
			avro_value_t ev;
			if (avro_value_append(v, &ev, NULL) || from_interop(&ev, e)) return -1;
		}
		return 0;
	}
	case AVRO_MAP: {
		const char *k;
		json_t *e;
		if (!json_is_object(j)) break;
		json_object_foreach(j, k, e) {
			avro_value_t ev;
			if (avro_value_add(v, k, &ev, NULL, NULL) || from_interop(&ev, e)) return -1;
		}
		return 0;
	}
	case AVRO_UNION: {
		avro_value_t br;
		/* protoavro's unions are ["null", T] */
		if (avro_value_set_branch(v, json_is_null(j) ? 0 : 1, &br)) return -1;
		return from_interop(&br, j);
	}
	default:
		break;
	}
	avro_set_error("value does not fit the schema (type %d)", avro_value_get_type(v));
	return -1;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	sbuf b = {0};
	char tmp[65536];
	size_t n;
	put(&b, "", 0);
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) put(&b, tmp, n);
	fclose(f);
	*len = b.len;
	return b.buf;
}

static int write_job(json_t *job, char *err, size_t errlen)
{
	const char *schema_path = json_string_value(json_object_get(job, "schema"));
	const char *input = json_string_value(json_object_get(job, "input"));
	const char *output = json_string_value(json_object_get(job, "output"));
	const char *codec = json_string_value(json_object_get(job, "codec"));
	size_t len;
	char *text = slurp(schema_path, &len), *line, *next;
	avro_schema_t schema;
	avro_file_writer_t w;
	avro_value_iface_t *iface;
	avro_value_t v;
	int rc = -1;
	if (!text || avro_schema_from_json_length(text, len, &schema)) {
		snprintf(err, errlen, "schema: %s", avro_strerror());
		free(text);
		return -1;
	}
	free(text);
	remove(output);
	if (avro_file_writer_create_with_codec(output, schema, &w, codec, 4 << 20)) {
		snprintf(err, errlen, "create: %s", avro_strerror());
		avro_schema_decref(schema);
		return -1;
	}
	iface = avro_generic_class_from_schema(schema);
	avro_generic_value_new(iface, &v);
	text = slurp(input, &len);
	if (!text) {
		snprintf(err, errlen, "cannot read %s", input);
		goto out;
	}
	for (line = text; line && *line; line = next) {
		json_error_t jerr;
		json_t *j;
		next = strchr(line, '\n');
		if (next) *next++ = 0;
		if (!(j = json_loads(line, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr))) {
			snprintf(err, errlen, "JSON: %s", jerr.text);
			goto out;
		}
		avro_value_reset(&v);
		if (from_interop(&v, j) || avro_file_writer_append_value(w, &v)) {
			snprintf(err, errlen, "record: %s", avro_strerror());
			json_decref(j);
			goto out;
		}
		json_decref(j);
	}
	rc = 0;
out:
	free(text);
	avro_value_decref(&v);
	avro_value_iface_decref(iface);
	if (avro_file_writer_close(w) && rc == 0) {
		snprintf(err, errlen, "close: %s", avro_strerror());
		rc = -1;
	}
	avro_schema_decref(schema);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "read")) {
		for (int i = 2; i < argc; i++) read_file(argv[i]);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "write")) {
		size_t len;
		char *jobs = slurp(argv[2], &len), *line, *next;
		if (!jobs) return 2;
		for (line = jobs; line && *line; line = next) {
			char err[4096] = "";
			json_error_t jerr;
			next = strchr(line, '\n');
			if (next) *next++ = 0;
			json_t *job = json_loads(line, 0, &jerr);
			if (!job) return 2;
			sbuf b = {0};
			const char *output = json_string_value(json_object_get(job, "output"));
			puts_(&b, "{\"output\":");
			put_str(&b, output, strlen(output));
			if (write_job(job, err, sizeof err)) {
				puts_(&b, ",\"error\":");
				put_str(&b, err, strlen(err));
			}
			puts_(&b, "}");
			printf("%s\n", b.buf);
			fflush(stdout);
			free(b.buf);
			json_decref(job);
		}
		free(jobs);
		return 0;
	}
	fprintf(stderr, "usage: avroc read FILE... | avroc write JOBS\n");
	return 2;
}
