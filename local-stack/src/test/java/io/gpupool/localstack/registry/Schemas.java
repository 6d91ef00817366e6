package io.gpupool.localstack.registry;

import org.apache.avro.Schema;

/** Small schemas for registry tests: a record in versions that evolve compatibly and not. */
final class Schemas {
    private Schemas() {
    }

    static Schema parse(final String json) {
        return new Schema.Parser().parse(json);
    }

    /** v1: {id: string}. */
    static final Schema V1 = parse("{\"type\":\"record\",\"name\":\"Job\",\"namespace\":\"t\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"string\"}]}");
    /** v2 = v1 + an optional field with a default: backward and forward compatible. */
    static final Schema V2 = parse("{\"type\":\"record\",\"name\":\"Job\",\"namespace\":\"t\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"gpus\",\"type\":\"int\",\"default\":1}]}");
    /** v1 + a required field without default: new cannot read old (not BACKWARD), old can read new (FORWARD). */
    static final Schema REQUIRED_FIELD = parse("{\"type\":\"record\",\"name\":\"Job\",\"namespace\":\"t\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"tenant\",\"type\":\"string\"}]}");
    /** id retyped to int: incompatible every way. */
    static final Schema RETYPED = parse("{\"type\":\"record\",\"name\":\"Job\",\"namespace\":\"t\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"int\"}]}");
    /** v2 without 'id': backward compatible with v2 only (removing a field is fine for readers)... */
    static final Schema ONLY_GPUS = parse("{\"type\":\"record\",\"name\":\"Job\",\"namespace\":\"t\",\"fields\":["
            + "{\"name\":\"gpus\",\"type\":\"int\",\"default\":1}]}");
    /** ...and adding id back as int with a default is BACKWARD against ONLY_GPUS but not against v1/v2. */
    static final Schema INT_ID_WITH_DEFAULT = parse("{\"type\":\"record\",\"name\":\"Job\",\"namespace\":\"t\","
            + "\"fields\":[{\"name\":\"gpus\",\"type\":\"int\",\"default\":1},"
            + "{\"name\":\"id\",\"type\":\"int\",\"default\":0}]}");
}
